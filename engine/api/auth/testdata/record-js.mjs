// Records requests and SAS tokens the JS storage SDKs sign, for the auth tests:
// cd engine/api/testdata/js && node ../../auth/testdata/record-js.mjs ../../auth/testdata/jssigned.json
import http from "node:http";
import fs from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(process.cwd() + "/package.json");
const blob = require("@azure/storage-blob");
const queue = require("@azure/storage-queue");

const name = "devstoreaccount1";
const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const got = [];
const server = http.createServer((req, res) => {
  const headers = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
  got.push({ service: req.socket.localPort === blobPort ? "blob" : "queue", method: req.method, target: req.url, headers });
  req.resume();
  req.on("end", () => { res.statusCode = 403; res.end(); });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const blobPort = server.address().port;
const qserver = http.createServer(server.listeners("request")[0]);
await new Promise((r) => qserver.listen(0, "127.0.0.1", r));
const queuePort = qserver.address().port;

const opts = { retryOptions: { maxTries: 1 } };
const bcred = new blob.StorageSharedKeyCredential(name, key);
const bsvc = new blob.BlobServiceClient(`http://127.0.0.1:${blobPort}/${name}`, bcred, opts);
const cont = bsvc.getContainerClient("box");
const tryIt = async (f) => { try { await f(); } catch {} };
await tryIt(() => cont.create({ metadata: { Owner: "v", a_1: "v", a1: "v" } }));
const bb = cont.getBlockBlobClient("dir/a b+c é.txt");
await tryIt(() => bb.upload("hello", 5, { blobHTTPHeaders: { blobContentType: "text/plain", blobContentEncoding: "gzip", blobContentLanguage: "en" }, metadata: { k: "v" } }));
await tryIt(() => bb.download(1, 3));
await tryIt(() => bb.setMetadata({ x: "1" }, { conditions: { ifMatch: '"0x1"' } }));
await tryIt(() => bb.stageBlock(Buffer.from("blk-1").toString("base64"), "part", 4));
await tryIt(() => cont.listBlobsByHierarchy("/", { prefix: "dir/a b" }).byPage().next());
await tryIt(() => bsvc.listContainers().byPage().next());
await tryIt(() => cont.delete());

const qcred = new queue.StorageSharedKeyCredential(name, key);
const qsvc = new queue.QueueServiceClient(`http://127.0.0.1:${queuePort}/${name}`, qcred, opts);
const q = qsvc.getQueueClient("jobs");
await tryIt(() => q.create({ metadata: { a1: "v", a_1: "v" } }));
await tryIt(() => q.sendMessage("hello <world>", { visibilityTimeout: 5, messageTimeToLive: 60 }));
await tryIt(() => q.receiveMessages({ numberOfMessages: 3 }));
await tryIt(() => q.peekMessages());
await tryIt(() => q.updateMessage("id-1", "pop/r+=", "new", 5));
await tryIt(() => q.deleteMessage("id-1", "pop/r+="));
await tryIt(() => q.clearMessages());
await tryIt(() => qsvc.listQueues({ prefix: "jo", includeMetadata: true }).byPage().next());

// SAS tokens, with the resource each is for.
const expiresOn = new Date(Date.now() + 365 * 24 * 3600 * 1000);
const startsOn = new Date(Date.now() - 3600 * 1000);
const sas = [];
for (const version of [undefined, "2015-04-05", "2018-11-09", "2020-12-06"]) {
  sas.push({ service: "blob", path: `/${name}/box/dir/a%20b.txt`, query: blob.generateBlobSASQueryParameters({ containerName: "box", blobName: "dir/a b.txt", permissions: blob.BlobSASPermissions.parse("rcw"), startsOn, expiresOn, version, contentType: "text/csv", contentDisposition: "inline" }, bcred).toString() });
  sas.push({ service: "blob", path: `/${name}/box`, query: blob.generateBlobSASQueryParameters({ containerName: "box", permissions: blob.ContainerSASPermissions.parse("rl"), expiresOn, version }, bcred).toString() });
}
sas.push({ service: "blob", path: `/${name}`, query: blob.generateAccountSASQueryParameters({ permissions: blob.AccountSASPermissions.parse("rl"), services: "bq", resourceTypes: "sco", expiresOn }, bcred).toString() });
sas.push({ service: "queue", path: `/${name}/jobs/messages`, query: queue.generateQueueSASQueryParameters({ queueName: "jobs", permissions: queue.QueueSASPermissions.parse("raup"), expiresOn, startsOn }, qcred).toString() });
sas.push({ service: "queue", path: `/${name}`, query: queue.generateAccountSASQueryParameters({ permissions: queue.AccountSASPermissions.parse("rl"), services: "q", resourceTypes: "s", expiresOn }, qcred).toString() });

fs.writeFileSync(process.argv[2], JSON.stringify({ note: "requests and SAS tokens signed by @azure/storage-blob 12.32.0 and @azure/storage-queue 12.30.0 (recorded by the script in the test that reads this)", requests: got, sas }, null, 1) + "\n");
server.close(); qserver.close();
