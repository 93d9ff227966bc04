// The real @azure/storage-blob SDK, unchanged, against a running server.
// STORAGE_CONNECTION_STRING names it (its BlobEndpoint and account key).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import {
  AccountSASPermissions,
  AnonymousCredential,
  AccountSASResourceTypes,
  AccountSASServices,
  BlobServiceClient,
  ContainerClient,
  ContainerSASPermissions,
  StorageSharedKeyCredential,
  generateAccountSASQueryParameters,
  generateBlobSASQueryParameters,
} from "@azure/storage-blob";
import { account, conn, endpointOf, key, name, noRetry, rejects } from "./storage.mjs";

const endpoint = endpointOf("Blob");
const cred = new StorageSharedKeyCredential(account, key);
const service = BlobServiceClient.fromConnectionString(conn, noRetry);

async function newContainer(prefix = "js") {
  const c = service.getContainerClient(name(prefix));
  await c.create();
  return c;
}

async function bytes(stream) {
  const parts = [];
  for await (const p of stream) parts.push(p);
  return Buffer.concat(parts);
}

const md5 = (b) => createHash("md5").update(b).digest();
const blockId = (i) => Buffer.from(`block-${String(i).padStart(4, "0")}`).toString("base64");

test("containers: create, conflict, properties, metadata, list pages, delete", async () => {
  const prefix = name("ctr");
  const names = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
  for (const n of names) {
    await service.getContainerClient(n).create({ metadata: { owner: n } });
  }
  await rejects(service.getContainerClient(names[0]).create(), 409, "ContainerAlreadyExists");
  await rejects(service.getContainerClient("Bad_Name").create(), 400, "InvalidResourceName");

  const pages = [];
  for await (const page of service.listContainers({ prefix, includeMetadata: true }).byPage({ maxPageSize: 2 })) {
    pages.push(page.containerItems.map((c) => [c.name, c.metadata.owner]));
  }
  assert.deepEqual(pages, [
    [[names[0], names[0]], [names[1], names[1]]],
    [[names[2], names[2]]],
  ]);

  const c = service.getContainerClient(names[0]);
  const props = await c.getProperties();
  assert.equal(props.metadata.owner, names[0]);
  assert.ok(props.etag && props.lastModified instanceof Date);
  const set = await c.setMetadata({ alpha: "1", Beta: "two" });
  assert.notEqual(set.etag, props.etag);
  assert.deepEqual((await c.getProperties()).metadata, { alpha: "1", beta: "two" });
  await rejects(c.setMetadata({ "bad-name": "x" }), 400, "InvalidMetadata");

  assert.equal(await c.exists(), true);
  await c.delete();
  assert.equal(await c.exists(), false);
  await rejects(c.getProperties(), 404, "ContainerNotFound");
  await rejects(c.delete(), 404, "ContainerNotFound");
  for (const n of names.slice(1)) await service.getContainerClient(n).delete();
});

test("put blob, download, ranges, properties, metadata, delete", async () => {
  const c = await newContainer();
  const data = randomBytes(1_500_000);
  const blobName = "dir/sub dir/ä?b#c%d+e.bin";
  const b = c.getBlockBlobClient(blobName);
  const up = await b.upload(data, data.length, {
    blobHTTPHeaders: { blobContentType: "application/x-test", blobContentLanguage: "en", blobCacheControl: "no-cache", blobContentDisposition: "inline" },
    metadata: { color: "blue" },
    transactionalContentMD5: md5(data),
  });
  assert.deepEqual(Buffer.from(up.contentMD5), md5(data));

  const dl = await b.download();
  assert.equal(dl.contentLength, data.length);
  assert.equal(dl.contentType, "application/x-test");
  assert.equal(dl.blobType, "BlockBlob");
  assert.equal(dl.etag, up.etag);
  assert.deepEqual(Buffer.from(dl.contentMD5), md5(data));
  assert.deepEqual(dl.metadata, { color: "blue" });
  assert.ok((await bytes(dl.readableStreamBody)).equals(data));

  for (const [off, count] of [[0, 1], [983_030, 20], [1_499_999, 1], [1000, undefined]]) {
    const r = await b.download(off, count);
    const end = count === undefined ? data.length : off + count;
    assert.ok((await bytes(r.readableStreamBody)).equals(data.subarray(off, end)), `range ${off}+${count}`);
    assert.equal(r.contentRange, `bytes ${off}-${end - 1}/${data.length}`);
  }
  await rejects(b.download(data.length, 10), 416, "InvalidRange");
  const rmd5 = await b.download(10, 100, { rangeGetContentMD5: true });
  assert.deepEqual(Buffer.from(rmd5.contentMD5), md5(data.subarray(10, 110)));
  assert.ok((await b.downloadToBuffer(0, undefined, { blockSize: 300_000, concurrency: 3 })).equals(data));

  const props = await b.getProperties();
  assert.equal(props.contentLength, data.length);
  assert.equal(props.contentLanguage, "en");
  assert.equal(props.cacheControl, "no-cache");
  assert.equal(props.contentDisposition, "inline");
  assert.ok(props.createdOn instanceof Date);

  await rejects(b.upload("other", 5, { transactionalContentMD5: md5(data) }), 400, "Md5Mismatch");
  assert.equal((await b.getProperties()).etag, up.etag);

  await b.setHTTPHeaders({ blobContentType: "text/plain" });
  const after = await b.getProperties();
  assert.equal(after.contentType, "text/plain");
  assert.equal(after.contentLanguage, undefined);
  assert.equal(after.contentMD5, undefined);
  await b.setMetadata({ a: "1", b: "2" });
  assert.deepEqual((await b.getProperties()).metadata, { a: "1", b: "2" });

  const empty = c.getBlockBlobClient("empty");
  await empty.upload("", 0);
  const e = await empty.download();
  assert.equal(e.contentLength, 0);
  assert.equal(e.contentType, "application/octet-stream");

  await b.delete();
  await rejects(b.getProperties(), 404);
  await rejects(b.download(), 404, "BlobNotFound");
  await rejects(b.delete(), 404, "BlobNotFound");
  await rejects(service.getContainerClient(name("nope")).getBlockBlobClient("x").upload("x", 1), 404, "ContainerNotFound");
  await c.delete();
});

test("conditions: If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since", async () => {
  const c = await newContainer();
  const b = c.getBlockBlobClient("cond");
  const up = await b.upload("v1", 2);
  const other = '"0x8D000000000000"';
  await rejects(b.download(0, undefined, { conditions: { ifMatch: other } }), 412, "ConditionNotMet");
  await rejects(b.getProperties({ conditions: { ifNoneMatch: up.etag } }), 304);
  await rejects(b.getProperties({ conditions: { ifNoneMatch: "*" } }), 304);
  await rejects(b.getProperties({ conditions: { ifModifiedSince: new Date(up.lastModified.getTime() + 1000) } }), 304);
  // A HEAD answer has no body, and the SDK reads no code from it.
  await rejects(b.getProperties({ conditions: { ifUnmodifiedSince: new Date(up.lastModified.getTime() - 3600_000) } }), 412);
  await rejects(b.download(0, undefined, { conditions: { ifUnmodifiedSince: new Date(up.lastModified.getTime() - 3600_000) } }), 412, "ConditionNotMet");
  await b.getProperties({ conditions: { ifMatch: up.etag, ifModifiedSince: new Date(up.lastModified.getTime() - 3600_000) } });

  await rejects(b.upload("v2", 2, { conditions: { ifNoneMatch: "*" } }), 409, "BlobAlreadyExists");
  await rejects(b.upload("v2", 2, { conditions: { ifMatch: other } }), 412, "ConditionNotMet");
  await rejects(b.setMetadata({ x: "1" }, { conditions: { ifMatch: other } }), 412, "ConditionNotMet");
  await rejects(b.delete({ conditions: { ifMatch: other } }), 412, "ConditionNotMet");
  const up2 = await b.upload("v2", 2, { conditions: { ifMatch: up.etag } });
  assert.notEqual(up2.etag, up.etag);
  await rejects(c.getBlockBlobClient("new").upload("x", 1, { conditions: { ifMatch: "*" } }), 412, "ConditionNotMet");
  await c.getBlockBlobClient("new").upload("x", 1, { conditions: { ifNoneMatch: "*" } });
  await b.delete({ conditions: { ifMatch: up2.etag } });
  await c.delete();
});

test("blocks: stage, block lists, commit, recommit, errors", async () => {
  const c = await newContainer();
  const b = c.getBlockBlobClient("blocks");
  const parts = [randomBytes(1000), randomBytes(1_000_000), Buffer.from("tail")];
  for (const [i, p] of parts.entries()) {
    await b.stageBlock(blockId(i), p, p.length, { transactionalContentMD5: md5(p) });
  }
  await rejects(b.stageBlock(blockId(9), "x", 1, { transactionalContentMD5: Buffer.alloc(16) }), 400, "Md5Mismatch");
  await rejects(b.stageBlock(Buffer.from("a longer block id").toString("base64"), "x", 1), 400, "InvalidBlobOrBlock");

  let list = await b.getBlockList("all");
  assert.equal(list.uncommittedBlocks.length, 3);
  assert.equal(list.committedBlocks.length, 0);
  await rejects(b.getProperties(), 404);
  await rejects(b.commitBlockList([blockId(0), blockId(7)]), 400, "InvalidBlockList");

  const whole = Buffer.concat([parts[2], parts[0], parts[1]]);
  const cr = await b.commitBlockList([blockId(2), blockId(0), blockId(1)], {
    blobHTTPHeaders: { blobContentType: "image/png", blobContentMD5: md5(whole) },
    metadata: { kind: "blocks" },
  });
  const dl = await b.download();
  assert.equal(dl.etag, cr.etag);
  assert.equal(dl.contentType, "image/png");
  assert.deepEqual(Buffer.from(dl.contentMD5), md5(whole));
  assert.ok((await bytes(dl.readableStreamBody)).equals(whole));

  list = await b.getBlockList("all");
  assert.deepEqual(list.committedBlocks.map((x) => [x.name, x.size]), [[blockId(2), 4], [blockId(0), 1000], [blockId(1), 1_000_000]]);
  assert.equal(list.uncommittedBlocks.length, 0);
  assert.equal(list.blobContentLength, whole.length);

  await b.stageBlock(blockId(3), "new", 3);
  assert.deepEqual((await b.getBlockList("uncommitted")).uncommittedBlocks.map((x) => x.name), [blockId(3)]);
  await b.commitBlockList([blockId(2), blockId(3)]);
  assert.equal((await b.downloadToBuffer()).toString(), "tailnew");
  assert.equal((await b.getBlockList("committed")).committedBlocks.length, 2);
  // The service counts committed blocks in the properties of append blobs only.
  assert.equal((await b.getProperties()).blobCommittedBlockCount, undefined);
  await c.delete();
});

test("uploadData and uploadStream stage several blocks", async () => {
  const c = await newContainer();
  const data = randomBytes(3 * 1024 * 1024 + 77);
  const a = c.getBlockBlobClient("data");
  await a.uploadData(data, { blockSize: 512 * 1024, maxSingleShotSize: 1024 * 1024, concurrency: 4 });
  assert.equal((await a.getBlockList("committed")).committedBlocks.length, 7);
  assert.ok((await a.downloadToBuffer()).equals(data));

  const s = c.getBlockBlobClient("stream");
  await s.uploadStream(Readable.from([data.subarray(0, 1_000_000), data.subarray(1_000_000)]), 256 * 1024, 3);
  assert.ok((await s.downloadToBuffer()).equals(data));
  assert.ok((await s.getBlockList("committed")).committedBlocks.length > 1);

  const one = c.getBlockBlobClient("single");
  await one.uploadData(data.subarray(0, 100_000));
  assert.deepEqual(Buffer.from((await one.getProperties()).contentMD5), md5(data.subarray(0, 100_000)));
  await c.delete();
});

test("list blobs: flat pages with metadata, hierarchy with prefixes", async () => {
  const c = await newContainer();
  const names = ["a.txt", "logs/2024/01.log", "logs/2024/02.log", "logs/2025/01.log", "logs/readme", "z"];
  for (const n of names) await c.getBlockBlobClient(n).upload(n, n.length, { metadata: { n: "x" } });

  const pages = [];
  for await (const page of c.listBlobsFlat({ includeMetadata: true }).byPage({ maxPageSize: 4 })) {
    pages.push(page.segment.blobItems.map((b) => b.name));
    for (const b of page.segment.blobItems) {
      assert.equal(b.metadata.n, "x");
      assert.equal(b.properties.contentLength, b.name.length);
      assert.equal(b.properties.blobType, "BlockBlob");
    }
  }
  assert.deepEqual(pages, [names.slice(0, 4), names.slice(4)]);

  const level = async (prefix, maxPageSize) => {
    const out = [];
    for await (const page of c.listBlobsByHierarchy("/", { prefix }).byPage({ maxPageSize })) {
      out.push([...(page.segment.blobPrefixes ?? []).map((p) => `P:${p.name}`), ...page.segment.blobItems.map((b) => b.name)]);
    }
    return out;
  };
  assert.deepEqual(await level("", 2), [["P:logs/", "a.txt"], ["z"]]);
  assert.deepEqual(await level("logs/", 100), [["P:logs/2024/", "P:logs/2025/", "logs/readme"]]);
  assert.deepEqual(await level("logs/2024/", 1), [["logs/2024/01.log"], ["logs/2024/02.log"]]);
  await c.delete();
});

test("shared access signatures: container SAS by permission, account SAS", async () => {
  const c = await newContainer();
  await c.getBlockBlobClient("readme").upload("hello", 5);
  const sas = (permissions) =>
    generateBlobSASQueryParameters(
      { containerName: c.containerName, permissions: ContainerSASPermissions.parse(permissions), expiresOn: new Date(Date.now() + 3600_000) },
      cred,
    ).toString();
  const ro = new ContainerClient(`${endpoint}/${c.containerName}?${sas("rl")}`, new AnonymousCredential(), noRetry);
  assert.equal((await ro.getBlockBlobClient("readme").downloadToBuffer()).toString(), "hello");
  const listed = [];
  for await (const b of ro.listBlobsFlat()) listed.push(b.name);
  assert.deepEqual(listed, ["readme"]);
  await rejects(ro.getBlockBlobClient("new").upload("x", 1), 403, "AuthorizationPermissionMismatch");
  await rejects(ro.getBlockBlobClient("readme").delete(), 403, "AuthorizationPermissionMismatch");

  const cr = new ContainerClient(`${endpoint}/${c.containerName}?${sas("c")}`, new AnonymousCredential(), noRetry);
  await cr.getBlockBlobClient("new").upload("x", 1);
  await rejects(cr.getBlockBlobClient("readme").upload("x", 1), 403, "AuthorizationPermissionMismatch");

  const rw = new ContainerClient(`${endpoint}/${c.containerName}?${sas("rwd")}`, new AnonymousCredential(), noRetry);
  await rw.getBlockBlobClient("readme").upload("changed", 7);
  await rw.getBlockBlobClient("readme").delete();

  const acct = generateAccountSASQueryParameters(
    {
      permissions: AccountSASPermissions.parse("rl"),
      resourceTypes: AccountSASResourceTypes.parse("sco").toString(),
      services: AccountSASServices.parse("b").toString(),
      expiresOn: new Date(Date.now() + 3600_000),
    },
    cred,
  ).toString();
  const viaAccount = new BlobServiceClient(`${endpoint}?${acct}`, new AnonymousCredential(), noRetry);
  const found = [];
  for await (const x of viaAccount.listContainers({ prefix: c.containerName })) found.push(x.name);
  assert.deepEqual(found, [c.containerName]);
  await rejects(viaAccount.getContainerClient(name("other")).create(), 403, "AuthorizationPermissionMismatch");
  await c.delete();
});

test("what tablelab does not implement answers 501 NotImplemented", async () => {
  const c = await newContainer();
  await c.getBlockBlobClient("b").upload("x", 1);
  const calls = {
    "append blob": () => c.getAppendBlobClient("ab").create(),
    "page blob": () => c.getPageBlobClient("pb").create(512),
    snapshot: () => c.getBlobClient("b").createSnapshot(),
    tier: () => c.getBlobClient("b").setAccessTier("Cool"),
    tags: () => c.getBlobClient("b").setTags({ a: "b" }),
    lease: () => c.getBlobClient("b").getBlobLeaseClient().acquireLease(15),
    "service properties": () => service.getProperties(),
    "access policy": () => c.getAccessPolicy(),
  };
  for (const [what, call] of Object.entries(calls)) {
    const err = await rejects(call(), 501, "NotImplemented");
    assert.ok(err, what);
  }
  await c.delete();
});
