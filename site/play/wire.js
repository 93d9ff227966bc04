// The text of HTTP/1.1 messages as they cross to the engine worker: one
// string per request and one per response (site contract 3). Nothing here
// touches the DOM or Node, so the page, the runner Worker and node --test
// share it.

const encoder = new TextEncoder();

/**
 * formatRequest writes a request as "METHOD SP target SP HTTP/1.1", its
 * header fields and its body. headers is an iterable of [name, value]
 * pairs; Host and Content-Length are added when missing, so the text is a
 * complete HTTP/1.1 message whoever reads it.
 */
export function formatRequest(method, url, headers, body = "") {
  const u = new URL(url);
  const lines = [`${method.toUpperCase()} ${u.pathname}${u.search} HTTP/1.1`];
  let host = false;
  let length = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    host ||= lower === "host";
    length ||= lower === "content-length";
    lines.push(`${name}: ${clean(value)}`);
  }
  if (!host) lines.splice(1, 0, `Host: ${u.host}`);
  if (!length && body !== "") {
    lines.push(`Content-Length: ${encoder.encode(body).length}`);
  }
  return lines.join("\r\n") + "\r\n\r\n" + body;
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
  const body = split < 0 ? "" : text.slice(split + gap);
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
  return { status: Number(m[1]), reason: m[2] ?? "", headers, body };
}
