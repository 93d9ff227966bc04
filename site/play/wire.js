// HTTP/1.1 messages as they cross to the engine worker: one string, or one
// Uint8Array when the body may be binary (a blob's), per request and per
// response (site contract 3). Nothing here touches the DOM or Node, so the
// page, the runner Worker and node --test share it.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * formatRequest writes a request as "METHOD SP target SP HTTP/1.1", its
 * header fields and its body. headers is an iterable of [name, value]
 * pairs; Host and Content-Length are added when missing, so the text is a
 * complete HTTP/1.1 message whoever reads it.
 */
export function formatRequest(method, url, headers, body = "") {
  return formatHead(method, url, headers, body === "" ? 0 : encoder.encode(body).length) + body;
}

/**
 * formatRequestBytes is formatRequest for a body of bytes (a Uint8Array):
 * the head as UTF-8 text, then the body as it is, in one Uint8Array.
 */
export function formatRequestBytes(method, url, headers, body = new Uint8Array(0)) {
  const head = encoder.encode(formatHead(method, url, headers, body.length));
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

// formatHead writes the request line and header fields, and the blank
// line that ends them, adding Host and, for a body of length bytes,
// Content-Length when missing.
function formatHead(method, url, headers, length) {
  const u = new URL(url);
  const lines = [`${method.toUpperCase()} ${u.pathname}${u.search} HTTP/1.1`];
  let host = false;
  let hasLength = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    host ||= lower === "host";
    hasLength ||= lower === "content-length";
    lines.push(`${name}: ${clean(value)}`);
  }
  if (!host) lines.splice(1, 0, `Host: ${u.host}`);
  if (!hasLength && length > 0) lines.push(`Content-Length: ${length}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

// clean keeps a header value on its own line: a line break inside a value
// would otherwise start a header field of the caller's choosing.
function clean(value) {
  return String(value).replace(/[\r\n]+/g, " ");
}

/**
 * parseResponse reads "HTTP/1.1 STATUS Reason", header fields and a body
 * into {status, reason, headers, body}; headers maps each lower-cased name
 * to its value (repeated fields joined with ", "). It throws a SyntaxError
 * for text that is not a response, so a broken engine shows as an error
 * rather than as a response the SDK misreads.
 */
export function parseResponse(text) {
  if (typeof text !== "string") {
    throw new SyntaxError("engine response is not text");
  }
  let split = text.indexOf("\r\n\r\n");
  let gap = 4;
  if (split < 0) {
    split = text.indexOf("\n\n");
    gap = 2;
  }
  const head = split < 0 ? text : text.slice(0, split);
  return { ...parseHead(head), body: split < 0 ? "" : text.slice(split + gap) };
}

/**
 * parseResponseBytes is parseResponse for a response held as a
 * Uint8Array: the head is read as UTF-8 text and body is the bytes after
 * it (a view into bytes), which a blob's download needs as they are.
 */
export function parseResponseBytes(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    throw new SyntaxError("engine response is not bytes");
  }
  let split = -1;
  let gap = 4;
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] !== 10) continue; // LF
    if (bytes[i + 1] === 10) {
      split = i;
      gap = 2;
      break;
    }
    if (bytes[i - 1] === 13 && bytes[i + 1] === 13 && bytes[i + 2] === 10) {
      split = i - 1;
      break;
    }
  }
  const head = decoder.decode(split < 0 ? bytes : bytes.subarray(0, split));
  return { ...parseHead(head), body: split < 0 ? new Uint8Array(0) : bytes.subarray(split + gap) };
}

// parseHead reads the status line and header fields of a response.
function parseHead(head) {
  const [statusLine, ...fields] = head.split(/\r?\n/);
  const m = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!m) {
    throw new SyntaxError(`engine response has no status line: ${JSON.stringify(statusLine.slice(0, 80))}`);
  }
  const headers = {};
  for (const field of fields) {
    if (field === "") continue;
    const colon = field.indexOf(":");
    if (colon <= 0) {
      throw new SyntaxError(`malformed header field in engine response: ${JSON.stringify(field.slice(0, 80))}`);
    }
    const name = field.slice(0, colon).trim().toLowerCase();
    const value = field.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(m[1]), reason: m[2] ?? "", headers };
}
