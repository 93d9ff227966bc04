// A tablelab server for the tests: built from this checkout and started
// with -memory on a free loopback port, plus relay, which plays the engine
// worker's part (one request text in, one response text out) over HTTP.

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
 * {endpoint, port, stop}. It runs $TABLELAB_BIN when set (a test command
 * that has built the server already), or builds this checkout.
 */
export async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), "tablelab-play-"));
  let bin = process.env.TABLELAB_BIN;
  if (!bin) {
    bin = join(dir, "tablelab");
    execFileSync("go", ["build", "-o", bin, "."], { cwd: moduleRoot, stdio: "inherit" });
  }
  const port = await freePort();
  // No site (-site-addr empty): these tests need the Table service only.
  // The request log is kept (the last few KiB) to explain a failed start.
  const child = spawn(bin, ["-memory", "-site-addr=", "-table-addr", `127.0.0.1:${port}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-8192);
  });
  try {
    await waitForPort(port, child);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${err.message}:\n${log}`);
  }
  return {
    port,
    endpoint: `http://127.0.0.1:${port}/devstoreaccount1`,
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
 * relay sends a request written as HTTP/1.1 text to the server on port and
 * resolves to its response as HTTP/1.1 text, as the engine worker answers:
 * the whole body after the head, with no transfer coding.
 */
export function relay(port, text) {
  const split = text.indexOf("\r\n\r\n");
  const [line, ...fields] = text.slice(0, split).split("\r\n");
  const body = text.slice(split + 4);
  const [method, target] = line.split(" ");
  const headers = {};
  for (const f of fields) {
    const i = f.indexOf(":");
    headers[f.slice(0, i)] = f.slice(i + 1).trim();
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: target, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const out = [`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i];
          if (/^(transfer-encoding|content-length|connection)$/i.test(name)) continue;
          out.push(`${name}: ${res.rawHeaders[i + 1]}`);
        }
        resolve(out.join("\r\n") + "\r\n\r\n" + Buffer.concat(chunks).toString("utf8"));
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
