// -throttle with the real @azure/data-tables SDK: a burst past a
// partition's target gets 503 ServerBusy when the client does not retry,
// and lands whole under the SDK's default retry policy. The target is
// lowered to 40 entities a second so that the burst is one this machine
// can make within a second whatever its load.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serverWith, newTable, clientOf, odataError, count } from "./ownserver.mjs";

const target = 40;
const { conn } = await serverWith(["-throttle", `partition=${target}`]);

// burst writes n entities to partition pk at once and says which
// settled how, and how many seconds of the clock it spanned.
async function burst(client, pk, n) {
  const start = Date.now();
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => client.createEntity({ partitionKey: pk, rowKey: String(i).padStart(4, "0") })),
  );
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(start / 1000) + 1;
  return { results, seconds };
}

test("throttling: with retries off, a burst past the partition's target gets 503 ServerBusy", async () => {
  const table = await newTable(conn, "burst");
  const once = clientOf(conn, table, { retryOptions: { maxRetries: 0 } });
  const { results, seconds } = await burst(once, "hot", 100);
  const landed = results.filter((r) => r.status === "fulfilled").length;
  const refused = results.filter((r) => r.status === "rejected");
  assert.ok(landed <= target * seconds, `${landed} writes landed in ${seconds} s, over ${target} a second`);
  if (seconds <= 2) assert.ok(refused.length >= 100 - 2 * target, `${refused.length} refused`);
  for (const { reason } of refused) {
    assert.equal(reason.statusCode, 503, reason.message);
    assert.deepEqual(odataError(reason)?.code, "ServerBusy");
    assert.match(odataError(reason)?.message?.value ?? "", /^The server is busy\.\nRequestId:/);
  }
  // What was refused was not written; the count reads the partition with
  // retries, since reading it is throttled too.
  assert.equal(await count(table, "PartitionKey eq 'hot'"), landed);
  // Another partition is not held back by the hot one.
  await once.createEntity({ partitionKey: "cool", rowKey: "1" });
});

test("throttling: with the SDK's default retry policy, every write of a burst lands", async () => {
  const table = await newTable(conn, "retried");
  // Twice the target: a write refused in the burst's second is admitted
  // at its first retry that falls in a later one (the policy waits 0.5 to
  // 1 s, then 1 to 2 s more).
  const n = 2 * target;
  const { results } = await burst(table, "hot", n);
  const failed = results.filter((r) => r.status === "rejected").map((r) => r.reason.message);
  assert.deepEqual(failed, []);
  assert.equal(await count(table, "PartitionKey eq 'hot'"), n);
});
