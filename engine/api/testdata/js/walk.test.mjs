// The real @azure/data-tables SDK, unchanged, against a running server.
// TABLES_CONNECTION_STRING names the server; TABLELAB=1 adds the checks of
// tablelab's plan headers; TABLES_DEVSTORE=1 says the server is on
// 127.0.0.1:10002, so UseDevelopmentStorage=true must work too.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AzureNamedKeyCredential,
  AzureSASCredential,
  TableClient,
  TableServiceClient,
  TableTransaction,
  generateTableSas,
  odata,
} from "@azure/data-tables";

const conn = process.env.TABLES_CONNECTION_STRING;
if (!conn) throw new Error("set TABLES_CONNECTION_STRING");
const opts = { allowInsecureConnection: true };
const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const endpoint = /TableEndpoint=([^;]+)/.exec(conn)[1].replace(/\/$/, "");
const service = TableServiceClient.fromConnectionString(conn, opts);

let counter = 0;
function tableName(prefix) {
  counter++;
  return `${prefix}${Date.now().toString(36)}${counter}`.replace(/[^A-Za-z0-9]/g, "");
}

async function newTable(prefix) {
  const name = tableName(prefix);
  const client = TableClient.fromConnectionString(conn, name, opts);
  await client.createTable();
  return client;
}

// The service's error code: batch errors carry it in err.code; others only
// in the body, as the service sends no x-ms-error-code header.
function codeOf(err) {
  if (err.code && !/^[A-Z_]+$/.test(err.code)) return err.code;
  const body = err.response?.parsedBody ?? (() => {
    try { return JSON.parse(err.response?.bodyAsText ?? ""); } catch { return undefined; }
  })();
  return body?.odataError?.code ?? body?.["odata.error"]?.code ?? err.code;
}

async function rejects(promise, status, code) {
  try {
    await promise;
  } catch (err) {
    assert.equal(err.statusCode, status, `status of ${err.message}`);
    if (code) assert.equal(codeOf(err), code, `code of ${err.message}`);
    return err;
  }
  assert.fail(`expected ${status} ${code}`);
}

async function all(iter) {
  const out = [];
  for await (const e of iter) out.push(e);
  return out;
}

test("tables: create, conflict, list with paging and filter, delete", async () => {
  const base = tableName("tbl");
  const names = ["a", "b", "c", "d", "e"].map((s) => base + s);
  for (const n of names) await service.createTable(n);
  // createTable swallows TableAlreadyExists, as it does against the service.
  await TableClient.fromConnectionString(conn, names[0], opts).createTable();
  const filter = odata`TableName ge ${base} and TableName lt ${base + "z"}`;
  const pages = [];
  for await (const page of service.listTables({ queryOptions: { filter } }).byPage({ maxPageSize: 2 })) pages.push(page.map((t) => t.name));
  assert.deepEqual(pages, [[names[0], names[1]], [names[2], names[3]], [names[4]]]);
  for (const n of names) await service.deleteTable(n);
  // deleteTable swallows a missing table; the raw answer is still 404.
  await service.deleteTable(names[0]);
  const remaining = await all(service.listTables({ queryOptions: { filter } }));
  assert.equal(remaining.length, 0);
  await rejects(service.createTable("ab"), 400, "OutOfRangeInput");
  await rejects(service.createTable("1abc"), 400, "InvalidResourceName");
});

test("entities: create, get, select, update, upsert, delete, etags", async () => {
  const c = await newTable("ent");
  const created = await c.createEntity({ partitionKey: "Sales", rowKey: "1", name: "Ann", age: 30 });
  assert.ok(created.etag.startsWith('W/"datetime'));
  await rejects(c.createEntity({ partitionKey: "Sales", rowKey: "1" }), 409, "EntityAlreadyExists");
  const got = await c.getEntity("Sales", "1");
  assert.equal(got.name, "Ann");
  assert.equal(got.age, 30);
  assert.equal(got.etag, created.etag);
  const sel = await c.getEntity("Sales", "1", { queryOptions: { select: ["name"] } });
  assert.equal(sel.name, "Ann");
  assert.equal(sel.age, undefined);

  const merged = await c.updateEntity({ partitionKey: "Sales", rowKey: "1", name: "Anne" }, "Merge", { etag: created.etag });
  assert.notEqual(merged.etag, created.etag);
  const afterMerge = await c.getEntity("Sales", "1");
  assert.equal(afterMerge.age, 30);
  await rejects(c.updateEntity({ partitionKey: "Sales", rowKey: "1", x: 1 }, "Replace", { etag: created.etag }), 412, "UpdateConditionNotSatisfied");
  await c.updateEntity({ partitionKey: "Sales", rowKey: "1", only: true }, "Replace");
  const replaced = await c.getEntity("Sales", "1");
  assert.equal(replaced.only, true);
  assert.equal(replaced.age, undefined);
  await rejects(c.updateEntity({ partitionKey: "Sales", rowKey: "404" }, "Merge"), 404, "ResourceNotFound");

  await c.upsertEntity({ partitionKey: "Sales", rowKey: "2", a: 1 }, "Merge");
  await c.upsertEntity({ partitionKey: "Sales", rowKey: "2", b: 2 }, "Merge");
  assert.deepEqual([(await c.getEntity("Sales", "2")).a, (await c.getEntity("Sales", "2")).b], [1, 2]);
  await c.upsertEntity({ partitionKey: "Sales", rowKey: "2", c: 3 }, "Replace");
  const up = await c.getEntity("Sales", "2");
  assert.equal(up.a, undefined);
  assert.equal(up.c, 3);

  await rejects(c.deleteEntity("Sales", "2", { etag: created.etag }), 412, "UpdateConditionNotSatisfied");
  await c.deleteEntity("Sales", "2", { etag: up.etag });
  await rejects(c.getEntity("Sales", "2"), 404, "ResourceNotFound");
  await rejects(c.deleteEntity("Sales", "2"), 404, "ResourceNotFound");
  const missing = TableClient.fromConnectionString(conn, tableName("nope"), opts);
  await rejects(missing.createEntity({ partitionKey: "a", rowKey: "b" }), 404, "TableNotFound");

  // A fetched entity sent back as it came (odata.etag, Timestamp and all).
  const fetched = await c.getEntity("Sales", "1");
  await c.updateEntity(fetched, "Replace");
  await c.deleteTable();
});

test("every Edm type round-trips", async () => {
  const c = await newTable("edm");
  const when = new Date("2024-01-02T03:04:05.123Z");
  await c.createEntity({
    partitionKey: "p",
    rowKey: "r",
    str: "héllo 'quoted' \"double\" 🚀",
    empty: "",
    i32: -2147483648,
    big: 9007199254740993n,
    i64obj: { value: "-9223372036854775808", type: "Int64" },
    i64max: { value: "9223372036854775807", type: "Int64" },
    dbl: 3.5,
    whole: { value: "3", type: "Double" },
    nan: { value: "NaN", type: "Double" },
    inf: { value: "Infinity", type: "Double" },
    ninf: { value: "-Infinity", type: "Double" },
    bool: false,
    when,
    precise: { value: "2024-01-02T03:04:05.1234567Z", type: "DateTime" },
    id: { value: "c9da6455-213d-42c9-9a79-3e9149a57833", type: "Guid" },
    bin: new Uint8Array([0, 1, 2, 255]),
    emptyBin: new Uint8Array([]),
  });
  const e = await c.getEntity("p", "r");
  assert.equal(e.str, "héllo 'quoted' \"double\" 🚀");
  assert.equal(e.empty, "");
  assert.equal(e.i32, -2147483648);
  assert.equal(e.big, 9007199254740993n);
  assert.equal(e.i64obj, -9223372036854775808n);
  assert.equal(e.i64max, 9223372036854775807n);
  assert.equal(e.dbl, 3.5);
  assert.equal(e.whole, 3);
  // The SDK hands annotated non-finite Doubles back as their strings.
  assert.equal(e.nan, "NaN");
  assert.equal(e.inf, "Infinity");
  assert.equal(e.ninf, "-Infinity");
  assert.equal(e.bool, false);
  assert.equal(e.when.toISOString(), when.toISOString());
  assert.deepEqual(e.id, { value: "c9da6455-213d-42c9-9a79-3e9149a57833", type: "Guid" });
  assert.deepEqual([...e.bin], [0, 1, 2, 255]);
  assert.deepEqual([...e.emptyBin], []);
  // Without type conversion the wire strings show the 7 fraction digits
  // kept. (A whole Double goes out as 3.0, but JSON.parse makes that 3 and
  // this SDK then calls it Int32; engine/api's tests check the wire.)
  const raw = await c.getEntity("p", "r", { disableTypeConversion: true });
  assert.deepEqual(raw.precise, { value: "2024-01-02T03:04:05.1234567Z", type: "DateTime" });
  assert.deepEqual(raw.big, { value: "9007199254740993", type: "Int64" });
  assert.deepEqual(raw.nan, { value: "NaN", type: "Double" });
  await c.deleteTable();
});

test("a typed null, as the SDK sends an invalid Date or a bare Infinity, is stored as no property", async () => {
  // JSON.stringify writes an invalid Date and a non-finite number as
  // null, keeping the type annotation: "D": null, "D@odata.type":
  // "Edm.DateTime". The service stores no nulls, typed or not; a null
  // in a merge leaves the property as it was.
  const c = await newTable("nulls");
  await c.createEntity({ partitionKey: "p", rowKey: "r", when: new Date("not a date"), far: Infinity, kept: 1 });
  let e = await c.getEntity("p", "r");
  assert.equal(e.kept, 1);
  assert.ok(!("when" in e), `when: ${e.when}`);
  assert.ok(!("far" in e), `far: ${e.far}`);
  await c.updateEntity({ partitionKey: "p", rowKey: "r", kept: { value: "2", type: "Int64" }, when: new Date("2024-05-06T07:08:09Z") }, "Merge");
  await c.updateEntity({ partitionKey: "p", rowKey: "r", when: new Date("still not a date") }, "Merge");
  e = await c.getEntity("p", "r");
  assert.equal(e.when.toISOString(), "2024-05-06T07:08:09.000Z");
  await c.deleteTable();
});

test("service properties: set, read back, CORS enforced on a preflight", async () => {
  const before = await service.getProperties();
  await service.setProperties({
    logging: { version: "1.0", read: true, write: false, delete: true, retentionPolicy: { enabled: true, days: 2 } },
    cors: [{ allowedOrigins: "http://localhost:3000", allowedMethods: "GET,POST", allowedHeaders: "x-ms-*,content-type", exposedHeaders: "x-ms-*", maxAgeInSeconds: 60 }],
  });
  const after = await service.getProperties();
  assert.equal(after.logging.read, true);
  assert.equal(after.logging.delete, true);
  assert.equal(after.logging.retentionPolicy.days, 2);
  assert.equal(after.cors.length, 1);
  assert.equal(after.cors[0].allowedOrigins, "http://localhost:3000");
  const pre = await fetch(`${endpoint}/Tables`, {
    method: "OPTIONS",
    headers: { Origin: "http://localhost:3000", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
  });
  assert.equal(pre.status, 200);
  assert.equal(pre.headers.get("access-control-allow-origin"), "http://localhost:3000");
  const refused = await fetch(`${endpoint}/Tables`, {
    method: "OPTIONS",
    headers: { Origin: "http://elsewhere.test", "Access-Control-Request-Method": "POST" },
  });
  assert.equal(refused.status, 403);
  await service.setProperties({ cors: before.cors ?? [] });
  assert.deepEqual((await service.getProperties()).cors ?? [], before.cors ?? []);
});

test("fidelity: If-Match forms, boolean literals in any case, $top=0", async () => {
  const c = await newTable("fid");
  const made = await c.createEntity({ partitionKey: "p", rowKey: "r", on: true, n: 1 });
  // A weak ETag's W/ in lower case matches; a strong ETag is refused.
  const lower = "w" + made.etag.slice(1);
  await c.updateEntity({ partitionKey: "p", rowKey: "r", n: 2 }, "Merge", { etag: lower });
  await rejects(c.updateEntity({ partitionKey: "p", rowKey: "r", n: 3 }, "Merge", { etag: made.etag.slice(2) }), 400, "InvalidInput");
  assert.equal((await c.getEntity("p", "r")).n, 2);
  for (const filter of ["on eq True", "on eq TRUE", "not (on eq False)"]) {
    assert.equal((await all(c.listEntities({ queryOptions: { filter } }))).length, 1, filter);
  }
  await c.createEntity({ partitionKey: "p", rowKey: "s" });
  // $top=0: an empty page, and a token that resumes at the first entity.
  const first = (await c.listEntities().byPage({ maxPageSize: 0 }).next()).value;
  assert.equal(first.length, 0);
  assert.ok(first.continuationToken, "a continuation after $top=0");
  const rest = (await c.listEntities().byPage({ continuationToken: first.continuationToken }).next()).value;
  assert.deepEqual(rest.map((e) => e.rowKey), ["r", "s"]);
  await c.deleteTable();
});

test("keys with special characters; forbidden ones refused", async () => {
  const c = await newTable("keys");
  for (const k of ["O'Brien & Co", "50% + tax", "ünïcødé 鍵", "sp ace", "a=b,c;d", "''", ""]) {
    await c.createEntity({ partitionKey: k, rowKey: k, k });
    assert.equal((await c.getEntity(k, k)).k, k);
    await c.updateEntity({ partitionKey: k, rowKey: k, u: true }, "Merge");
    await c.deleteEntity(k, k);
  }
  for (const k of ["a/b", "a\\b", "a#b", "a?b", "tab\there"]) {
    await rejects(c.createEntity({ partitionKey: k, rowKey: "r" }), 400, "OutOfRangeInput");
  }
  await c.deleteTable();
});

test("bad input answers with the service's codes", async () => {
  const c = await newTable("bad");
  await rejects(c.createEntity({ partitionKey: "p", rowKey: "1", s: "x".repeat(32 * 1024 + 1) }), 400, "PropertyValueTooLarge");
  const many = { partitionKey: "p", rowKey: "2" };
  for (let i = 0; i < 253; i++) many[`p${i}`] = i;
  await rejects(c.createEntity(many), 400, "TooManyProperties");
  await rejects(c.createEntity({ partitionKey: "p", rowKey: "3", ["n".repeat(256)]: 1 }), 400, "PropertyNameTooLong");
  await rejects(all(c.listEntities({ queryOptions: { filter: "PartitionKey eq" } })), 400, "InvalidInput");
  assert.equal((await all(c.listEntities())).length, 0);
  await c.deleteTable();
});

async function fill(c, n, partitionOf, propsOf) {
  let tx = null;
  let pk = null;
  for (let i = 0; i < n; i++) {
    const p = partitionOf(i);
    if (tx && (tx.actions.length === 100 || p !== pk)) {
      await c.submitTransaction(tx.actions);
      tx = null;
    }
    if (!tx) {
      tx = new TableTransaction();
      pk = p;
    }
    tx.createEntity({ partitionKey: p, rowKey: String(i).padStart(5, "0"), ...propsOf(i) });
  }
  if (tx) await c.submitTransaction(tx.actions);
}

test("queries and paging across 2,600 entities", async () => {
  const c = await newTable("page");
  const n = 2600;
  await fill(c, n, (i) => `p${i % 7}`, (i) => ({
    n: i,
    big: BigInt(i) * 10000000000n,
    odd: i % 2 === 1,
    when: new Date(Date.UTC(2020, 0, 1) + i * 3600_000),
    dbl: i + 0.5,
  }));
  const seen = new Set();
  let last = "";
  let pages = 0;
  for await (const page of c.listEntities().byPage({ maxPageSize: 1000 })) {
    pages++;
    assert.ok(page.length <= 1000);
    for (const e of page) {
      const k = `${e.partitionKey}|${e.rowKey}`;
      assert.ok(!seen.has(k), `${k} repeated`);
      assert.ok(k > last, `${k} out of order`);
      seen.add(k);
      last = k;
    }
  }
  assert.equal(seen.size, n);
  assert.equal(pages, 3);

  // Paging by continuation token, one page at a time.
  let token;
  let total = 0;
  do {
    const iter = c.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${"p3"}` } }).byPage({ maxPageSize: 100, continuationToken: token });
    const { value: page } = await iter.next();
    total += page.length;
    token = page.continuationToken;
  } while (token);
  assert.equal(total, 371);

  const count = async (filter) => (await all(c.listEntities({ queryOptions: { filter } }))).length;
  assert.equal(await count("n lt 100"), 100);
  assert.equal(await count(odata`n ge ${100} and n lt ${200} or n eq ${2599}`), 101);
  assert.equal(await count("big gt 25000000000000L"), 99);
  assert.equal(await count("odd eq true"), n / 2);
  assert.equal(await count(odata`when ge ${new Date("2020-01-02T00:00:00Z")}`), n - 24);
  assert.equal(await count("dbl gt 2598.0"), 2);
  assert.equal(await count("not (n lt 2590)"), 10);
  assert.equal(await count("missing eq 1"), 0);
  assert.equal(await count("n eq -1"), 0);
  await c.deleteTable();
});

test("transactions: success, and a failing one changes nothing", async () => {
  const c = await newTable("tx");
  for (const rk of ["upd", "mrg", "del", "dup"]) await c.createEntity({ partitionKey: "p", rowKey: rk, old: true });
  const tx = new TableTransaction();
  tx.createEntity({ partitionKey: "p", rowKey: "new", n: 1 });
  tx.updateEntity({ partitionKey: "p", rowKey: "upd", r: true }, "Replace");
  tx.updateEntity({ partitionKey: "p", rowKey: "mrg", m: true }, "Merge");
  tx.upsertEntity({ partitionKey: "p", rowKey: "ups", u: true }, "Replace");
  tx.deleteEntity("p", "del");
  const res = await c.submitTransaction(tx.actions);
  assert.equal(res.status, 202);
  assert.equal(res.subResponses.length, 5);
  assert.equal((await c.getEntity("p", "upd")).old, undefined);
  assert.equal((await c.getEntity("p", "mrg")).old, true);
  await rejects(c.getEntity("p", "del"), 404);

  const bad = new TableTransaction();
  bad.createEntity({ partitionKey: "p", rowKey: "a1" });
  bad.updateEntity({ partitionKey: "p", rowKey: "mrg", z: true }, "Merge");
  bad.deleteEntity("p", "upd");
  bad.createEntity({ partitionKey: "p", rowKey: "dup" });
  const err = await rejects(c.submitTransaction(bad.actions), 409, "EntityAlreadyExists");
  assert.match(err.message, /^3:/);
  await rejects(c.getEntity("p", "a1"), 404);
  assert.equal((await c.getEntity("p", "mrg")).z, undefined);
  await c.getEntity("p", "upd");

  // (A transaction over two partitions never leaves this SDK: it checks.)
  const big = new TableTransaction();
  for (let i = 0; i < 101; i++) big.createEntity({ partitionKey: "p", rowKey: `m${i}` });
  await rejects(c.submitTransaction(big.actions), 400, "InvalidInput");
  await rejects(c.getEntity("p", "m0"), 404);
  await c.deleteTable();
});

test("stored access policies: set, read back, a SAS naming one, the policy changed and removed", async () => {
  const c = await newTable("acl");
  await c.createEntity({ partitionKey: "shelf", rowKey: "a1", item: "atlas" });
  const expiresOn = new Date(Math.floor(Date.now() / 1000) * 1000 + 3600_000);
  await c.setAccessPolicy([{ id: "viewers", accessPolicy: { permission: "r", expiry: expiresOn } }]);
  const [policy] = await c.getAccessPolicy();
  assert.equal(policy.id, "viewers");
  assert.equal(policy.accessPolicy.permission, "r");
  assert.equal(new Date(policy.accessPolicy.expiry).getTime(), expiresOn.getTime());
  const cred = new AzureNamedKeyCredential("devstoreaccount1", devKey);
  const sas = generateTableSas(c.tableName, cred, { identifier: "viewers" });
  assert.match(sas, /si=viewers/);
  assert.doesNotMatch(sas, /sp=/);
  const viewer = new TableClient(endpoint, c.tableName, new AzureSASCredential(sas), opts);
  assert.equal((await viewer.getEntity("shelf", "a1")).item, "atlas");
  await rejects(viewer.createEntity({ partitionKey: "shelf", rowKey: "a2" }), 403, "AuthorizationPermissionMismatch");
  await c.setAccessPolicy([{ id: "viewers", accessPolicy: { permission: "ra", expiry: expiresOn } }]);
  await viewer.createEntity({ partitionKey: "shelf", rowKey: "a2" });
  await c.setAccessPolicy([]);
  assert.deepEqual(await c.getAccessPolicy(), []);
  await rejects(viewer.getEntity("shelf", "a1"), 403, "AuthenticationFailed");
  await c.deleteTable();
});

test("shared access signatures: permissions, expiry and key ranges [azure]", async () => {
  const c = await newTable("sas");
  await fill(c, 40, (i) => `p${Math.floor(i / 10)}`, (i) => ({ n: i }));
  const cred = new AzureNamedKeyCredential("devstoreaccount1", devKey);
  const client = (sas) => new TableClient(endpoint, c.tableName, new AzureSASCredential(sas), opts);

  const readOnly = client(generateTableSas(c.tableName, cred, { permissions: { query: true }, expiresOn: new Date(Date.now() + 3600_000) }));
  assert.equal((await readOnly.getEntity("p1", "00012")).n, 12);
  await rejects(readOnly.createEntity({ partitionKey: "p1", rowKey: "new" }), 403, "AuthorizationPermissionMismatch");

  const expired = client(generateTableSas(c.tableName, cred, { permissions: { query: true }, startsOn: new Date(Date.now() - 7200_000), expiresOn: new Date(Date.now() - 3600_000) }));
  await rejects(expired.getEntity("p1", "00012"), 403, "AuthenticationFailed");

  const ranged = client(generateTableSas(c.tableName, cred, {
    permissions: { query: true, add: true, update: true, delete: true },
    expiresOn: new Date(Date.now() + 3600_000),
    startPartitionKey: "p1",
    endPartitionKey: "p2",
  }));
  const visible = await all(ranged.listEntities());
  assert.equal(visible.length, 20);
  assert.ok(visible.every((e) => e.partitionKey === "p1" || e.partitionKey === "p2"));
  // Outside the range a point read finds nothing (404, as Microsoft's
  // own cloud tests of table SAS expect); every other operation is 403.
  await rejects(ranged.getEntity("p0", "00001"), 404);
  await rejects(ranged.createEntity({ partitionKey: "p3", rowKey: "new" }), 403);
  await ranged.createEntity({ partitionKey: "p2", rowKey: "new" });
  await rejects(c.getEntity("p3", "new"), 404);
  const tx = new TableTransaction();
  tx.createEntity({ partitionKey: "p3", rowKey: "b1" });
  await rejects(ranged.submitTransaction(tx.actions), 403);
  await c.deleteTable();
});

test("plan headers name the access pattern", { skip: process.env.TABLELAB !== "1" && "only tablelab sends plan headers" }, async () => {
  const c = await newTable("plan");
  await fill(c, 1000, (i) => (i % 2 === 0 ? "Sales" : "Support"), (i) => ({ LastName: i % 10 === 0 ? "Smith" : "Jones" }));
  const cases = [
    ["(PartitionKey eq 'Sales') and (RowKey eq '00002')", "point", 1, 1],
    ["PartitionKey eq 'Sales' and RowKey ge '00100' and RowKey lt '00200'", "range", 50, 50],
    ["PartitionKey eq 'Sales' and LastName eq 'Smith'", "partition-scan", 500, 100],
    ["LastName eq 'Jones'", "table-scan", 1000, 900],
    ["PartitionKey eq 'Sales' and (RowKey eq '00120' or RowKey eq '00322')", "partition-scan", 500, 2],
  ];
  for (const [filter, plan, examined, returned] of cases) {
    let headers;
    const iter = c.listEntities({ queryOptions: { filter }, onResponse: (raw) => { headers = raw.headers; } }).byPage();
    await iter.next();
    assert.deepEqual(
      [headers.get("x-tablelab-plan"), Number(headers.get("x-tablelab-examined")), Number(headers.get("x-tablelab-returned"))],
      [plan, examined, returned],
      filter,
    );
  }
  await c.deleteTable();
});

test("UseDevelopmentStorage=true reaches the server on 127.0.0.1:10002", { skip: process.env.TABLES_DEVSTORE !== "1" && "server not on 10002" }, async () => {
  const name = tableName("dev");
  const c = TableClient.fromConnectionString("UseDevelopmentStorage=true", name, opts);
  await c.createTable();
  await c.createEntity({ partitionKey: "a", rowKey: "b", v: 1 });
  assert.equal((await c.getEntity("a", "b")).v, 1);
  await c.deleteTable();
});
