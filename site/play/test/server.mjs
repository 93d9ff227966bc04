// A tablelab server for the tests: built from this checkout and started
// with -memory on free loopback ports, its three services each on its own,
// plus relay, which plays the engine worker's part (one request message in,
// one response message out) over HTTP.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const moduleRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The development account's well-known key. */
export const devKey =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/**
 * startServer starts the server with -memory on 127.0.0.1 and resolves to
 * {endpoint, port, endpoints, stop}: port and endpoint are the Table
 * service's, endpoints each service's ({blob, queue, table}). It runs
 * $TABLELAB_BIN when set (a test command that has built the server
 * already), or builds this checkout.
 */
export async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), "tablelab-play-"));
  let bin = process.env.TABLELAB_BIN;
  if (!bin) {
    bin = join(dir, "tablelab");
    execFileSync("go", ["build", "-o", bin, "."], { cwd: moduleRoot, stdio: "inherit" });
  }
  const ports = { blob: await freePort(), queue: await freePort(), table: await freePort() };
  // No site (-site-addr empty). The request log is kept (the last few KiB)
  // to explain a failed start.
  const args = ["-memory", "-site-addr="];
  for (const [service, port] of Object.entries(ports)) args.push(`-${service}-addr`, `127.0.0.1:${port}`);
  const child = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-8192);
  });
  try {
    for (const port of Object.values(ports)) await waitForPort(port, child);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${err.message}:\n${log}`);
  }
  const endpoints = {};
  for (const [service, port] of Object.entries(ports)) endpoints[service] = `http://127.0.0.1:${port}/devstoreaccount1`;
  return {
    port: ports.table,
    endpoint: endpoints.table,
    endpoints,
    stop() {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      const c = connect(port, "127.0.0.1", () => {
        c.destroy();
        resolve(true);
      });
      c.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("server did not start listening");
}

/**
 * relay sends a request written as an HTTP/1.1 message (text, or bytes as
 * engineHttpClient writes it) to the server its Host header names and
 * resolves to the response as a message of the same kind, as the engine
 * worker answers: the whole body after the head, with no transfer coding.
 */
export function relay(message) {
  const bytes = typeof message === "string" ? Buffer.from(message, "utf8") : Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const split = bytes.indexOf("\r\n\r\n");
  const [line, ...fields] = bytes.subarray(0, split).toString("utf8").split("\r\n");
  const body = bytes.subarray(split + 4);
  const [method, target] = line.split(" ");
  const headers = {};
  for (const f of fields) {
    const i = f.indexOf(":");
    headers[f.slice(0, i)] = f.slice(i + 1).trim();
  }
  const host = Object.entries(headers).find(([k]) => k.toLowerCase() === "host")?.[1] ?? "";
  const port = Number(host.split(":").pop());
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: target, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const out = [`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i];
          if (/^(transfer-encoding|connection)$/i.test(name)) continue;
          // A HEAD's Content-Length is the blob's; any other the body's,
          // which the message's end gives.
          if (/^content-length$/i.test(name) && method !== "HEAD") continue;
          out.push(`${name}: ${res.rawHeaders[i + 1]}`);
        }
        const head = Buffer.from(out.join("\r\n") + "\r\n\r\n", "utf8");
        const whole = Buffer.concat([head, ...chunks]);
        resolve(typeof message === "string" ? whole.toString("utf8") : new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength));
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
