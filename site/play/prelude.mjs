// The prelude: what every example on tablelab's pages finds ready, for a
// Node script of your own. Put this file beside runner.js, cost.js and
// heat.js (all four are in the site's play/ folder), install the SDKs, and
// start your script with
//
//   import "./prelude.mjs";
//
// then paste any example from the pages below it and run the script with
// `node` against `go run .`. The example sees what it sees on the page:
// the Azure SDKs' exports (TableClient, odata, QueueServiceClient,
// BlobServiceClient, …), connectionString, print, sleep and scorecard;
// you may also import those names from this module.
//
//   npm install @azure/data-tables @azure/storage-queue @azure/storage-blob
//
// connectionString is the development account's, on the ports `go run .`
// listens on; TABLELAB_CONNECTION_STRING in the environment replaces it.
// print writes a line as the pages print it; sleep(seconds) waits for
// real; scorecard(title, checks, options?) measures access patterns as
// the pages do (runner.js). Plans, examined and returned come from
// tablelab's X-Tablelab-* response headers, which Azure does not send:
// against Azure a scorecard still counts requests and writes, not plans.

import * as tables from "@azure/data-tables";
import * as blobs from "@azure/storage-blob";
import * as queues from "@azure/storage-queue";
import { sandbox, sdkOf } from "./runner.js";

/** DEVELOPMENT is the development account's connection string, on go run .'s ports. */
export const DEVELOPMENT =
  "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
  "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;" +
  "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;" +
  "TableEndpoint=http://127.0.0.1:10002/devstoreaccount1";

const { globals } = sandbox({
  sdk: sdkOf(tables, blobs, queues),
  connectionString: process.env.TABLELAB_CONNECTION_STRING || DEVELOPMENT,
  // The development endpoints are http://; the SDKs refuse to send a key
  // there without it, and it changes nothing for https.
  clientOptions: { allowInsecureConnection: true },
  onPrint: (line) => process.stdout.write(line + "\n"),
});

// The names an example may use without importing them. console stays
// Node's own.
for (const [name, value] of Object.entries(globals)) {
  if (name !== "console" && /^[A-Za-z_$][\w$]*$/.test(name)) globalThis[name] = value;
}

export const {
  TableClient,
  TableServiceClient,
  TableTransaction,
  odata,
  AzureNamedKeyCredential,
  AzureSASCredential,
  generateTableSas,
  QueueServiceClient,
  QueueClient,
  BlobServiceClient,
  ContainerClient,
  BlockBlobClient,
  connectionString,
  print,
  sleep,
  scorecard,
} = globals;
