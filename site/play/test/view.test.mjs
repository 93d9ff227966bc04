import { test } from "node:test";
import assert from "node:assert/strict";

import { queryTarget, errorText, serviceOf, prettyXML } from "../view.js";

test("queryTarget: the table path and query options, never the SAS", () => {
  const sas = "sv=2019-02-02&ss=t&srt=sco&sp=rwdlau&se=2026-11-23T12%3A30%3A08Z&sig=abc%2B%3D";
  assert.equal(
    queryTarget(`http://127.0.0.1:10002/devstoreaccount1/Orders()?$filter=PartitionKey%20eq%20'a%20b'&$top=5&${sas}`),
    "Orders()?$filter=PartitionKey eq 'a b'&$top=5",
  );
  assert.equal(
    queryTarget(`http://127.0.0.1:10002/devstoreaccount1/Orders(PartitionKey='p',RowKey='r%C3%BC')?${sas}`),
    "Orders(PartitionKey='p',RowKey='rü')",
  );
  assert.equal(queryTarget(`http://127.0.0.1:10002/devstoreaccount1/T()?NextPartitionKey=1!8!cA--&${sas}`), "T()?NextPartitionKey=1!8!cA--");
  assert.equal(queryTarget("not a url"), "");
});

test("queryTarget: what a queue or blob request does, without the SAS or the browser's cache buster", () => {
  const sas = "sv=2019-02-02&ss=bqt&srt=sco&sp=rwdlacup&se=2099-12-31T00%3A00%3A00Z&sig=abc%2B%3D";
  assert.equal(
    queryTarget(`http://127.0.0.1:10000/devstoreaccount1/photos?restype=container&comp=list&prefix=2026%2F&delimiter=%2F&${sas}&_=1700000000000`),
    "photos?restype=container&comp=list&prefix=2026/&delimiter=/",
  );
  assert.equal(queryTarget(`http://127.0.0.1:10000/devstoreaccount1/photos/2026/a%20b.jpg?${sas}`), "photos/2026/a b.jpg");
  assert.equal(
    queryTarget(`http://127.0.0.1:10001/devstoreaccount1/orders/messages?numofmessages=1&visibilitytimeout=30&${sas}`),
    "orders/messages?numofmessages=1&visibilitytimeout=30",
  );
  assert.equal(queryTarget(`http://127.0.0.1:10001/devstoreaccount1?comp=list&${sas}`), "?comp=list");
});

test("serviceOf: the development ports and host-style names", () => {
  assert.equal(serviceOf("http://127.0.0.1:10000/devstoreaccount1/c"), "blob");
  assert.equal(serviceOf("http://127.0.0.1:10001/devstoreaccount1/q"), "queue");
  assert.equal(serviceOf("http://127.0.0.1:10002/devstoreaccount1/T()"), "table");
  assert.equal(serviceOf("https://acct.blob.core.windows.net/c"), "blob");
  assert.equal(serviceOf("https://acct.queue.core.windows.net/q"), "queue");
  assert.equal(serviceOf("nonsense"), "table");
});

test("errorText: a RestError with its status, the service's code and message", () => {
  assert.equal(
    errorText({ name: "RestError", statusCode: 409, code: "EntityAlreadyExists", message: "{json}", detail: "The specified entity already exists." }),
    "RestError 409 EntityAlreadyExists: The specified entity already exists.",
  );
  assert.equal(errorText({ name: "TypeError", message: "x is not a function" }), "TypeError: x is not a function");
  assert.equal(errorText({ message: "odd" }), "Error: odd");
  // The place in the reader's code, and a service message without the
  // request id and time Azure adds on the lines after it.
  assert.equal(
    errorText({ name: "RestError", statusCode: 400, code: "OutOfRangeInput", line: 4, column: 9, message: "{}", detail: "The 'RowKey' parameter of value 'a/b' is out of range.\nRequestId:1\nTime:2026" }),
    "RestError 400 OutOfRangeInput at line 4, column 9: The 'RowKey' parameter of value 'a/b' is out of range.",
  );
});

test("prettyXML: an element a line, indented; text-only elements and empty ones on one line", () => {
  const xml =
    '<?xml version="1.0" encoding="utf-8"?><EnumerationResults ContainerName="photos"><Prefix>2026/</Prefix>' +
    "<Blobs><BlobPrefix><Name>2026/01/</Name></BlobPrefix><Blob><Name>a &lt; b</Name><Properties /></Blob></Blobs><NextMarker /></EnumerationResults>";
  assert.equal(
    prettyXML(xml),
    [
      '<?xml version="1.0" encoding="utf-8"?>',
      '<EnumerationResults ContainerName="photos">',
      "  <Prefix>2026/</Prefix>",
      "  <Blobs>",
      "    <BlobPrefix>",
      "      <Name>2026/01/</Name>",
      "    </BlobPrefix>",
      "    <Blob>",
      "      <Name>a &lt; b</Name>",
      "      <Properties />",
      "    </Blob>",
      "  </Blobs>",
      "  <NextMarker />",
      "</EnumerationResults>",
    ].join("\n"),
  );
  assert.equal(prettyXML("<a>\n  <b>x</b>\n</a>"), "<a>\n  <b>x</b>\n</a>");
  assert.equal(prettyXML("</z></z><y>"), "</z>\n</z>\n<y>");
});
