import { test } from "node:test";
import assert from "node:assert/strict";

import { encodeText, decodeText, shareHash, readShareHash } from "../share.js";

test("share: unicode, newlines and a long program survive the round trip", async () => {
  const lines = [];
  for (let i = 0; i < 4000; i++) {
    lines.push(`await client.createEntity({ partitionKey: "p${i % 7}", rowKey: "${i}", note: "Zoë ✓ 東京 🚀 \\t${i}" });`);
  }
  const program = "// crlf\r\n" + lines.join("\n") + "\n\n  trailing  \n";
  assert.ok(program.length > 300_000);
  const encoded = await encodeText(program);
  assert.match(encoded, /^[A-Za-z0-9_-]+$/);
  assert.ok(encoded.length < program.length / 4, `compressed to ${encoded.length}`);
  assert.equal(await decodeText(encoded), program);
  assert.equal(await decodeText(await encodeText("")), "");
  assert.equal(await decodeText(await encodeText("é")), "é");
});

test("share: a hash holds the code and, when asked, the data", async () => {
  const code = 'print("hé")\n';
  const data = '{"tables":{"T":[{"PartitionKey":"ü"}]}}';
  const only = await shareHash(code);
  assert.doesNotMatch(only, /data=/);
  assert.deepEqual(await readShareHash("#" + only), { code, data: undefined });
  const both = await shareHash(code, data);
  assert.deepEqual(await readShareHash(both), { code, data });
  assert.equal(await readShareHash(""), null);
  assert.equal(await readShareHash("#other=1"), null);
});

test("share: a damaged link is a SyntaxError, not garbage", async () => {
  const good = await encodeText("print(1)");
  await assert.rejects(decodeText(good.slice(0, -3) + "!!!"), SyntaxError);
  await assert.rejects(decodeText("AAAA"), SyntaxError);
  await assert.rejects(decodeText(good.slice(0, 3)), SyntaxError);
});
