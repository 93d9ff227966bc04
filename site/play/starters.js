// Starter programs for the playground. Each can run again on the kept
// store: upserts rather than inserts, tables, queues and containers
// created if missing.

/** STARTERS are {title, code} pairs, the first shown on a fresh visit. */
export const STARTERS = [
  {
    title: "Point read, range, partition scan, table scan",
    code: `// One table, keyed by region (PartitionKey) and customer id (RowKey).
const customers =
  TableClient.fromConnectionString(connectionString, "Customers");
await customers.createTable();

const regions = ["emea", "apac", "amer"];
for (const region of regions) {
  const tx = new TableTransaction();
  for (let i = 0; i < 40; i++) {
    tx.upsertEntity({
      partitionKey: region,
      rowKey: "c" + String(i).padStart(3, "0"),
      name: region.toUpperCase() + " customer " + i,
      vip: i % 10 === 0,
    }, "Replace");
  }
  await customers.submitTransaction(tx.actions);
}

// Both keys: a point read.
const one = customers.listEntities({ queryOptions: {
  filter: odata\`PartitionKey eq \${"apac"} and RowKey eq \${"c007"}\` } });
for await (const c of one) print("point:", c.name);

// One partition, a slice of its row keys: a range.
let n = 0;
const slice = customers.listEntities({ queryOptions: {
  filter: odata\`PartitionKey eq \${"emea"} and RowKey ge \${"c010"} and RowKey lt \${"c015"}\` } });
for await (const c of slice) n++;
print("range:", n, "customers");

// One partition, a property filter: the whole partition is read.
const vipsInAmer = customers.listEntities({ queryOptions: {
  filter: odata\`PartitionKey eq \${"amer"} and vip eq true\` } });
for await (const c of vipsInAmer) print("partition scan:", c.rowKey);

// No key at all: every entity of the table is examined.
let vips = 0;
const everyVip = customers.listEntities({
  queryOptions: { filter: "vip eq true" } });
for await (const c of everyVip) vips++;
print("table scan:", vips, "VIPs");
`,
  },
  {
    title: "Orders by date: a key design for ranges",
    code: `// Row keys that sort by date make "orders of a month" a range.
const orders = TableClient.fromConnectionString(connectionString, "Orders");
await orders.createTable();

const tx = new TableTransaction();
for (let day = 1; day <= 60; day++) {
  const date = new Date(Date.UTC(2026, 0, day)).toISOString().slice(0, 10);
  const total = day * 3.5;
  tx.upsertEntity({ partitionKey: "customer-42", rowKey: date, total }, "Replace");
}
// A transaction holds at most 100 operations, all in one partition.
await orders.submitTransaction(tx.actions);

let sum = 0;
const february = orders.listEntities({ queryOptions: {
  filter: odata\`PartitionKey eq \${"customer-42"} and RowKey ge \${"2026-02"} and RowKey lt \${"2026-03"}\` } });
for await (const o of february) sum += o.total;
print("February total:", sum);
`,
  },
  {
    title: "ETags and optimistic concurrency",
    code: `const stock = TableClient.fromConnectionString(connectionString, "Stock");
await stock.createTable();
const apples = { partitionKey: "shelf-1", rowKey: "apples" };
await stock.upsertEntity({ ...apples, count: 10 }, "Replace");

const seen = await stock.getEntity("shelf-1", "apples");
// Someone else changes the entity after we read it...
await stock.updateEntity({ ...apples, count: 9 }, "Merge");
// ...so our write, conditional on the ETag we read, is refused.
try {
  const fewer = { ...seen, count: seen.count - 1 };
  await stock.updateEntity(fewer, "Merge", { etag: seen.etag });
} catch (e) {
  print(e.name, e.statusCode, e.details?.odataError?.code);
}
print("count now:", (await stock.getEntity("shelf-1", "apples")).count);
`,
  },
  {
    title: "Pages and continuation tokens",
    code: `const events = TableClient.fromConnectionString(connectionString, "Events");
await events.createTable();
for (let b = 0; b < 3; b++) {
  const tx = new TableTransaction();
  for (let i = 0; i < 50; i++) {
    const rowKey = String(b * 50 + i).padStart(4, "0");
    tx.upsertEntity({ partitionKey: "day-1", rowKey }, "Replace");
  }
  await events.submitTransaction(tx.actions);
}

// Each page is one request; the SDK follows the continuation token.
let page = 0;
for await (const p of events.listEntities().byPage({ maxPageSize: 40 })) {
  print("page", ++page, "has", p.length, "entities");
}
`,
  },
  {
    title: "Queues: a message comes back when its worker dies",
    code: `// A queue hands each message to one worker at a time. A worker that
// takes a message and never deletes it (it crashed) does not lose it:
// once the visibility timeout ends, the message comes back.
const queues = QueueServiceClient.fromConnectionString(connectionString);
const jobs = queues.getQueueClient("jobs");
await jobs.createIfNotExists();
await jobs.clearMessages();

await jobs.sendMessage("ship order 42");

// Worker A takes it, hidden from the others for 30 seconds...
const [a] = (await jobs.receiveMessages({ visibilityTimeout: 30 })).receivedMessageItems;
print("A took:", a.messageText, "| dequeueCount", a.dequeueCount);
// ...so worker B finds nothing to do.
print("B finds:", (await jobs.receiveMessages()).receivedMessageItems.length, "messages");

// A dies. 30 seconds pass (the engine's clock jumps: no waiting here).
await sleep(30);
const [b] = (await jobs.receiveMessages({ visibilityTimeout: 30 })).receivedMessageItems;
print("B took:", b.messageText, "| dequeueCount", b.dequeueCount);

// Each take has its own pop receipt: A's is stale now, and finds no
// message (404, as Azure answers a worker that was too slow).
try {
  await jobs.deleteMessage(a.messageId, a.popReceipt);
} catch (e) {
  print("A's delete:", e.statusCode, e.code);
}
await jobs.deleteMessage(b.messageId, b.popReceipt);
print("left:", (await jobs.peekMessages()).peekedMessageItems.length, "messages");
// A message taken too often is a poison message: check dequeueCount and
// move it aside rather than retrying it forever.
`,
  },
  {
    title: "Blobs: folders by prefix, ranges, ETag conditions",
    code: `const service = BlobServiceClient.fromConnectionString(connectionString);
const photos = service.getContainerClient("photos");
await photos.createIfNotExists();

// Blob names may hold "/": a listing with a delimiter shows them as folders.
for (const name of ["2026/01/a.jpg", "2026/01/b.jpg", "2026/02/c.jpg", "2026/index.txt", "readme.txt"]) {
  const body = "contents of " + name;
  await photos.getBlockBlobClient(name).upload(body, body.length);
}
for await (const item of photos.listBlobsByHierarchy("/", { prefix: "2026/" })) {
  print(item.kind, item.name);
}

// Part of a blob: six bytes from offset 12.
const readme = photos.getBlockBlobClient("readme.txt");
print("range:", await textOf(await readme.download(12, 6)));

// A write on the condition that nobody changed the blob since we read it.
const seen = await readme.getProperties();
await readme.upload("changed by someone else", 23);
try {
  await readme.upload("my edit", 7, { conditions: { ifMatch: seen.etag } });
} catch (e) {
  print("conditional write:", e.statusCode, e.code);
}

// A download's body: a Blob in a browser, a stream in Node.
async function textOf(download) {
  if (download.blobBody) return (await download.blobBody).text();
  let text = "";
  const utf8 = new TextDecoder();
  for await (const chunk of download.readableStreamBody) text += utf8.decode(chunk, { stream: true });
  return text + utf8.decode();
}
`,
  },
];
