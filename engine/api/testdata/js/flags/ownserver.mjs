// What the walks of the production flags (-throttle, -fault, -paging,
// -scan) share: each starts servers of its own with the flags it tests,
// on free ports, from the binary the test command built (TABLELAB_BIN; the
// module is built once per file otherwise), and stops them when its tests
// end.
import { after } from "node:test";
import { TableClient } from "@azure/data-tables";
import { startServer, connectionString } from "../../../../../build/browser/server.mjs";

const started = [];
after(() => Promise.all(started.map((s) => s.stop())));

/**
 * serverWith starts `tablelab -memory` with args and returns its
 * connection string and log(), the tail of what it printed.
 */
export async function serverWith(args) {
  const srv = await startServer({ args, devPorts: false });
  started.push(srv);
  return { conn: connectionString(srv), log: srv.log };
}

let counter = 0;

/** newTable creates a table no other run has used and returns its client. */
export async function newTable(conn, prefix, options = {}) {
  counter++;
  const name = `${prefix}${Date.now().toString(36)}${counter}`;
  const client = TableClient.fromConnectionString(conn, name, { allowInsecureConnection: true, ...options });
  await client.createTable();
  return client;
}

/** clientOf is another client of table's, with options. */
export function clientOf(conn, table, options = {}) {
  return TableClient.fromConnectionString(conn, table.tableName, { allowInsecureConnection: true, ...options });
}

/** odataError is the Table service's error body of a RestError. */
export function odataError(err) {
  try {
    return JSON.parse(err.response?.bodyAsText ?? "")["odata.error"];
  } catch {
    return undefined;
  }
}

/** count reads every entity of table that filter matches, following every page. */
export async function count(table, filter) {
  let n = 0;
  for await (const _ of table.listEntities({ queryOptions: { filter } })) n++;
  return n;
}
