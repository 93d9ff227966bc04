import { test } from "node:test";
import assert from "node:assert/strict";

import { formatRequest, parseResponse } from "../wire.js";
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

test("engineHttpClient: hands the engine one text and gives the SDK a response it reads", async () => {
  let sent;
  const headersMade = [];
  const client = engineHttpClient(
    async (text) => {
      sent = text;
      return "HTTP/1.1 201 Created\r\nETag: W/\"1\"\r\nX-Tablelab-Plan: point\r\n\r\n{\"a\":1}";
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
  assert.equal(sent, 'POST /devstoreaccount1/T HTTP/1.1\r\nHost: 127.0.0.1:10002\r\nAccept: application/json\r\nContent-Length: 10\r\n\r\n{"k":"ü"}');
  assert.equal(res.request, request);
  assert.equal(res.status, 201);
  assert.equal(res.bodyAsText, '{"a":1}');
  assert.deepEqual(headersMade, [{ etag: 'W/"1"', "x-tablelab-plan": "point" }]);
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
  await assert.rejects(client.sendRequest({ method: "PUT", url: "http://h/", headers: [], body: new Blob(["x"]) }), TypeError);
  assert.equal(calls, 0);
});
