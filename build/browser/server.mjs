// Starting tablelab for the browser and parity tests: the real server
// (`go run . -memory`) on loopback ports nobody else holds, and the place
// the tests find the built site.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { createServer, Socket } from "node:net";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The module root: build/browser's grandparent. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The built site, as `go run ./build site` writes it. */
export const distDir = join(repoRoot, "dist");

/** The development account's well-known key. */
export const devKey =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/** Throws, saying what to run, when the site has not been built. */
export function requireDist() {
  if (!existsSync(join(distDir, "index.html"))) {
    throw new Error(`${distDir}/index.html is missing: build the site first (go run ./build site)`);
  }
}

/** A loopback port free right now; `preferred` when it is free. */
export async function freePort(preferred = 0) {
  const listen = (port) =>
    new Promise((ok, fail) => {
      const srv = createServer();
      srv.once("error", fail);
      srv.listen(port, "127.0.0.1", () => {
        const { port: got } = srv.address();
        srv.close(() => ok(got));
      });
    });
  if (preferred) {
    try {
      return await listen(preferred);
    } catch {
      // taken: any port will do
    }
  }
  return listen(0);
}

async function waitListening(port, child, log, limitMs) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`tablelab exited with ${child.exitCode} before listening on ${port}:\n${log()}`);
    }
    const up = await new Promise((ok) => {
      const sock = new Socket();
      sock.once("connect", () => (sock.destroy(), ok(true)));
      sock.once("error", () => (sock.destroy(), ok(false)));
      sock.connect(port, "127.0.0.1");
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`tablelab did not listen on ${port} within ${limitMs} ms:\n${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Builds the server once into a temporary directory, unless TABLELAB_BIN
 * names one already built (the test runner builds it for every tier).
 */
let built;
function serverBinary() {
  const given = process.env.TABLELAB_BIN;
  if (given && existsSync(given)) return given;
  if (!built) {
    // Once per process: parity starts a server per example.
    const dir = mkdtempSync(join(tmpdir(), "tablelab-bin-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    built = join(dir, "tablelab");
    execFileSync("go", ["build", "-o", built, "."], { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] });
  }
  return built;
}

/** Whether this build of the server knows the flag -name. */
function knowsFlag(bin, name) {
  // -h prints the usage (on stderr, as package flag does) and exits.
  const usage = spawnSync(bin, ["-h"], { encoding: "utf8" });
  return `${usage.stdout}${usage.stderr}`.includes(`-${name}`);
}

/**
 * Starts `tablelab -memory` with its Table service on tablePort (10002 when
 * free, so that the examples' development endpoint is the one they reach),
 * its Blob and Queue services on blobPort and queuePort (10000 and 10001
 * when free) when the build has them, and, when the build has -site-addr,
 * its site on another free port; args are added to the command line.
 * With devPorts false every port is any free one: a test that starts a
 * server of its own leaves the development ports to the one the others
 * share. TABLELAB_ANY_PORTS=1 in the environment makes that the default,
 * for a run by hand on a machine where others use the development ports. Returns the ports, whether it serves the site, and stop().
 */
export async function startServer(opts = {}) {
  // A port found free may be taken before the server binds it (another
  // test's server on this machine): try again with fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test(String(err.message))) throw err;
    }
  }
}

async function startServerOnce({ site = false, args: extra = [], devPorts = !process.env.TABLELAB_ANY_PORTS } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), "tablelab-browser-"));
  const bin = serverBinary();
  const dev = (port) => (devPorts ? port : 0);
  const tablePort = await freePort(dev(10002));
  // -v, every request logged: the log's tail says what the server saw
  // when a test fails.
  const args = ["-memory", "-table-addr", `127.0.0.1:${tablePort}`, ...extra];
  if (knowsFlag(bin, "v\t")) args.push("-v");
  let blobPort = 0;
  let queuePort = 0;
  if (knowsFlag(bin, "blob-addr")) {
    blobPort = await freePort(dev(10000));
    queuePort = await freePort(dev(10001));
    args.push("-blob-addr", `127.0.0.1:${blobPort}`, "-queue-addr", `127.0.0.1:${queuePort}`);
  }
  let sitePort = 0;
  const hasSite = knowsFlag(bin, "site-addr");
  const servesSite = site && hasSite;
  if (servesSite) {
    sitePort = await freePort();
    args.push("-site-addr", `127.0.0.1:${sitePort}`);
  } else if (hasSite) {
    // The site is served by default; empty serves none, so that this
    // server neither takes its port nor rebuilds dist/ under the tests.
    args.push("-site-addr=");
  }
  let out = "";
  const child = spawn(bin, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (b) => (out = (out + b).slice(-16000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const log = () => out.slice(-4000);
  const stop = async () => {
    if (child.exitCode === null) {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM"); // the process this function started, by its handle
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    for (const port of [tablePort, blobPort, queuePort]) if (port) await waitListening(port, child, log, 30000);
    // The site may be built first when it is missing or stale.
    if (servesSite) await waitListening(sitePort, child, log, 300000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { tablePort, blobPort, queuePort, sitePort, servesSite, log, stop };
}

/**
 * The connection string the examples use in Node, for a server started by
 * startServer (or, given a number, a Table service on that port): the
 * account key, and an endpoint for each service it runs.
 */
export function connectionString(server) {
  const ports = typeof server === "number" ? { tablePort: server } : server;
  let s = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + devKey;
  if (ports.blobPort) s += `;BlobEndpoint=http://127.0.0.1:${ports.blobPort}/devstoreaccount1`;
  if (ports.queuePort) s += `;QueueEndpoint=http://127.0.0.1:${ports.queuePort}/devstoreaccount1`;
  return s + `;TableEndpoint=http://127.0.0.1:${ports.tablePort}/devstoreaccount1`;
}
