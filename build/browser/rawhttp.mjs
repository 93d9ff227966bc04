// Raw HTTP/1.1 text, the form in which requests and responses cross the
// engine worker's message boundary (the shared contract): composing the
// Table requests the tests send, and reading the answers.

/** The headers every Table request of the tests carries. */
const tableHeaders = {
  Host: "127.0.0.1:10002",
  "x-ms-version": "2019-02-02",
  DataServiceVersion: "3.0",
  Accept: "application/json;odata=nometadata",
};

/**
 * One request as text. target is the path and query as sent (SAS
 * appended by the caller); body is a string or an object sent as JSON.
 */
export function request(method, target, body, headers = {}) {
  const all = { ...tableHeaders, ...headers };
  let text = "";
  if (body !== undefined) {
    text = typeof body === "string" ? body : JSON.stringify(body);
    all["Content-Type"] ??= "application/json";
    all["Content-Length"] = String(Buffer.byteLength(text));
  }
  const lines = Object.entries(all).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${text}`;
}

/** A response's status, headers (names lower-cased) and body. */
export function parseResponse(text) {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const m = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
  if (!m) throw new Error(`bad status line: ${JSON.stringify(statusLine)}`);
  const headers = {};
  for (const line of lines) {
    const i = line.indexOf(":");
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const body = text.slice(end + 4);
  let json;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: Number(m[1]), headers, body, json };
}

/**
 * A $batch request inserting entities into table, all in one change set
 * (all in one partition, as the service requires).
 */
export function insertBatch(table, entities, boundary) {
  const changeset = `changeset_${boundary}`;
  const batch = `batch_${boundary}`;
  const parts = entities.map(
    (e) =>
      `--${changeset}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n` +
      `POST http://127.0.0.1:10002/devstoreaccount1/${table} HTTP/1.1\r\n` +
      "Content-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\n" +
      `DataServiceVersion: 3.0\r\n\r\n${JSON.stringify(e)}\r\n`,
  );
  const body =
    `--${batch}\r\nContent-Type: multipart/mixed; boundary=${changeset}\r\n\r\n` +
    parts.join("") +
    `--${changeset}--\r\n--${batch}--\r\n`;
  return { body, contentType: `multipart/mixed; boundary=${batch}` };
}
