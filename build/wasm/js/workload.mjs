// The wasm benchmark's workload as JavaScript, for the columns that send
// it through the bridge (bench.mjs under Node, bench-chromium.mjs in a
// Worker of headless Chromium): the requests of wasm/bench, made the same
// way. It imports nothing, so a page can load it as it is.

const partitionSize = 1000;
const pad = (i, w) => String(i).padStart(w, "0");
const pk = (i) => "p" + pad(Math.floor(i / partitionSize), 4);
const rk = (i) => pad(i, 7);
const entity = (i) =>
  `{"PartitionKey":"${pk(i)}","RowKey":"${rk(i)}","N":${i},"Name":"customer ${i}","Amount":${i}.5,"Active":true}`;
const escape = (s) => s.replaceAll(" ", "%20").replaceAll("'", "%27");
const batch = (i) => {
  let b = "--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n";
  for (let j = 0; j < 100; j++) {
    b += "--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n";
    b += "POST http://127.0.0.1:10002/devstoreaccount1/Batch HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\n\r\n";
    b += entity(i * 100 + j) + "\r\n";
  }
  return b + "--changeset_c--\r\n--batch_b--\r\n";
};
export const request = (method, target, sas, body = "", contentType = "") =>
  `${method} /devstoreaccount1/${target}${target.includes("?") ? "&" : "?"}${sas} HTTP/1.1\r\n` +
  "Host: 127.0.0.1:10002\r\nAccept: application/json;odata=nometadata\r\nx-ms-version: 2019-02-02\r\n" +
  (contentType ? `Content-Type: ${contentType}\r\n` : "") + "\r\n" + body;

export const lines = (n) => {
  const repeat = Math.max(Math.floor(n / 100), 4);
  return [
  { name: "insert", ops: n, req: (i) => ["POST", "Bench", entity(i), "application/json"] },
  { name: "point read", ops: n, returned: 1, req: (i) => {
    const j = (i * 7919) % n;
    return ["GET", `Bench(PartitionKey='${pk(j)}',RowKey='${rk(j)}')`];
  } },
  { name: "partition scan (1,000)", ops: repeat, returned: Math.min(n, partitionSize), req: (i) =>
    ["GET", "Bench()?$filter=" + escape(`PartitionKey eq '${pk((i % Math.max(Math.floor(n / partitionSize), 1)) * partitionSize)}'`)] },
  { name: "filtered table scan", ops: repeat, returned: 10, req: (i) => {
    const lo = (i * 37) % (n - 10);
    return ["GET", "Bench()?$filter=" + escape(`N ge ${lo} and N lt ${lo + 10}`)];
  } },
  { name: "batch of 100 inserts", ops: Math.floor(n / 100), req: (i) => ["POST", "$batch", batch(i), "multipart/mixed; boundary=batch_b"] },
  ];
};
