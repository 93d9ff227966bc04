// node serve.mjs DIR PERSIST BLOBPORT QUEUEPORT TABLEPORT [NAME=VALUE…]
// runs the built Worker until its standard input closes, and prints
// "ready" once it answers. The test tier starts the SDK walks against it.
import { startWorker } from "./runtime.mjs";

const [dir, persist, blob, queue, table, ...rest] = process.argv.slice(2);
const vars = Object.fromEntries(rest.map((kv) => kv.split(/=(.*)/s, 2)));
const mf = await startWorker({ dir, persist, ports: { blob: +blob, queue: +queue, table: +table }, vars });
console.log("ready");
process.stdin.resume();
process.stdin.on("end", async () => {
  await mf.dispose();
  process.exit(0);
});
