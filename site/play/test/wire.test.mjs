import { test } from "node:test";
import assert from "node:assert/strict";

import { formatRequest, formatRequestBytes, parseResponse, parseResponseBytes } from "../wire.js";
import { engineHttpClient } from "../engine-http-client.js";

test("formatRequest: request line with path and query, Host, byte length of a UTF-8 body", () => {
  const text = formatRequest(
    "post",
    "http://127.0.0.1:10002/devstoreaccount1/Orders()?$filter=a%20eq%201",
    [["Content-Type", "application/json"], ["X-Evil", "a\r\nInjected: 1"]],
    '{"n":"é✓"}',
  );
  assert.equal(
    text,
    "POST /devstoreaccount1/Orders()?$filter=a%20eq%201 HTTP/1.1\r\n" +
      "Host: 127.0.0.1:10002\r\n" +
      "Content-Type: application/json\r\n" +
      "X-Evil: a Injected: 1\r\n" +
      "Content-Length: 13\r\n\r\n" +
      '{"n":"é✓"}',
  );
  assert.equal(formatRequest("GET", "http://h/x", []), "GET /x HTTP/1.1\r\nHost: h\r\n\r\n");
});

test("parseResponse: status, reason, lower-cased headers, repeated fields joined, body kept whole", () => {
  const r = parseResponse(
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Tablelab-Plan: range\r\nVary: a\r\nVary: b\r\n\r\n{\"x\":\"line\\r\\n\\r\\nnext\"}\r\n\r\ntail",
  );
  assert.equal(r.status, 200);
  assert.equal(r.reason, "OK");
  assert.deepEqual(r.headers, { "content-type": "application/json", "x-tablelab-plan": "range", vary: "a, b" });
  assert.equal(r.body, '{"x":"line\\r\\n\\r\\nnext"}\r\n\r\ntail');
});

test("parseResponse: bare LF, no reason, no body", () => {
  assert.deepEqual(parseResponse("HTTP/1.1 204\nETag: x\n\n"), {
    status: 204,
    reason: "",
    headers: { etag: "x" },
    body: "",
  });
  assert.deepEqual(parseResponse("HTTP/1.1 404 Not Found"), { status: 404, reason: "Not Found", headers: {}, body: "" });
});

test("parseResponse: text that is not a response is a SyntaxError", () => {
  for (const bad of ["", "hello", "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", undefined]) {
    assert.throws(() => parseResponse(bad), SyntaxError, JSON.stringify(bad));
  }
});

test("formatRequestBytes and parseResponseBytes: a binary body crosses as it is", () => {
  const body = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
  const msg = formatRequestBytes("put", "http://127.0.0.1:10000/devstoreaccount1/c/b%2Fc.bin", [["x-ms-blob-type", "BlockBlob"]], body);
  const head = "PUT /devstoreaccount1/c/b%2Fc.bin HTTP/1.1\r\nHost: 127.0.0.1:10000\r\nx-ms-blob-type: BlockBlob\r\nContent-Length: 300\r\n\r\n";
  assert.equal(new TextDecoder().decode(msg.subarray(0, head.length)), head);
  assert.deepEqual(msg.subarray(head.length), body);

  const resp = new Uint8Array([...new TextEncoder().encode("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-3/9\r\n\r\n"), 0, 13, 10, 255]);
  const r = parseResponseBytes(resp);
  assert.equal(r.status, 206);
  assert.equal(r.reason, "Partial Content");
  assert.deepEqual(r.headers, { "content-range": "bytes 0-3/9" });
  assert.deepEqual([...r.body], [0, 13, 10, 255]);
  assert.deepEqual([...parseResponseBytes(new TextEncoder().encode("HTTP/1.1 204\nETag: x\n\n")).body], []);
  assert.throws(() => parseResponseBytes("HTTP/1.1 200 OK\r\n\r\n"), SyntaxError);
  assert.throws(() => parseResponseBytes(new TextEncoder().encode("nonsense")), SyntaxError);
});

const decode = (b) => new TextDecoder().decode(b);
const bytesOf = (t) => new TextEncoder().encode(t);

test("engineHttpClient: hands the engine one message and gives the SDK a response it reads", async () => {
  let sent;
  const headersMade = [];
  const client = engineHttpClient(
    async (msg) => {
      sent = msg;
      return bytesOf("HTTP/1.1 201 Created\r\nETag: W/\"1\"\r\nX-Tablelab-Plan: point\r\n\r\n{\"a\":\"é\"}");
    },
    (raw) => {
      headersMade.push(raw);
      return new Map(Object.entries(raw));
    },
  );
  const request = {
    method: "POST",
    url: "http://127.0.0.1:10002/devstoreaccount1/T",
    headers: [["Accept", "application/json"]],
    body: new TextEncoder().encode('{"k":"ü"}'),
  };
  const res = await client.sendRequest(request);
  assert.ok(sent instanceof Uint8Array);
  assert.equal(decode(sent), 'POST /devstoreaccount1/T HTTP/1.1\r\nHost: 127.0.0.1:10002\r\nAccept: application/json\r\nContent-Length: 10\r\n\r\n{"k":"ü"}');
  assert.equal(res.request, request);
  assert.equal(res.status, 201);
  assert.equal(res.bodyAsText, '{"a":"é"}');
  assert.equal(res.blobBody, undefined);
  assert.deepEqual(headersMade, [{ etag: 'W/"1"', "x-tablelab-plan": "point" }]);
  // An engine that answers with text is read the same.
  const textual = engineHttpClient(async () => "HTTP/1.1 200 OK\r\n\r\nok", (raw) => new Map(Object.entries(raw)));
  assert.equal((await textual.sendRequest({ method: "GET", url: "http://h/", headers: [] })).bodyAsText, "ok");
});

test("engineHttpClient: the storage SDKs' request shape, a Blob upload and a streamed download", async () => {
  let sent;
  const payload = Uint8Array.from([0, 255, 13, 10, 13, 10, 7]);
  const client = engineHttpClient(
    async (msg) => {
      sent = msg;
      return new Uint8Array([...bytesOf("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"), ...payload]);
    },
    (raw) => {
      const m = new Map(Object.entries(raw));
      m.toJSON = () => ({ ...raw });
      return m;
    },
  );
  // The older WebResource shape: headers with headersArray().
  const request = {
    method: "PUT",
    url: "http://127.0.0.1:10000/devstoreaccount1/c/b",
    headers: { headersArray: () => [{ name: "x-ms-blob-type", value: "BlockBlob" }] },
    body: new Blob([payload]),
    streamResponseStatusCodes: new Set([200, 206]),
  };
  const res = await client.sendRequest(request);
  const head = "PUT /devstoreaccount1/c/b HTTP/1.1\r\nHost: 127.0.0.1:10000\r\nx-ms-blob-type: BlockBlob\r\nContent-Length: 7\r\n\r\n";
  assert.equal(decode(sent.subarray(0, head.length)), head);
  assert.deepEqual([...sent.subarray(head.length)], [...payload]);
  assert.equal(res.bodyAsText, undefined);
  const blob = await res.blobBody;
  assert.equal(blob.type, "application/octet-stream");
  assert.deepEqual([...new Uint8Array(await blob.arrayBuffer())], [...payload]);
  assert.deepEqual(res.headers.toJson({ preserveCase: true }), { "content-type": "application/octet-stream" });
  // A stream, and a function returning one, are read whole.
  for (const body of [() => new Blob(["ab", "c"]).stream(), new Blob(["abc"]).stream()]) {
    await client.sendRequest({ method: "PUT", url: "http://h/x", headers: [], body });
    assert.match(decode(sent), /Content-Length: 3\r\n\r\nabc$/);
  }
});

test("engineHttpClient: aborted requests and unknown bodies fail before reaching the engine", async () => {
  let calls = 0;
  const client = engineHttpClient(async () => {
    calls++;
    return "HTTP/1.1 200 OK\r\n\r\n";
  }, (h) => h);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(
    client.sendRequest({ method: "GET", url: "http://h/", headers: [], abortSignal: ac.signal }),
    { name: "AbortError" },
  );
  await assert.rejects(client.sendRequest({ method: "PUT", url: "http://h/", headers: [], body: 42 }), TypeError);
  await assert.rejects(client.sendRequest({ method: "PUT", url: "http://h/", headers: [], body: { a: 1 } }), TypeError);
  assert.equal(calls, 0);
});
