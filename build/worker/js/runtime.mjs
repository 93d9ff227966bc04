// Starting the built Worker under Miniflare (workerd) on 127.0.0.1, for the
// tests and the load run: the folder `go run ./build worker` writes, with
// its Durable Objects kept in a folder of their own so that a restart finds
// them again.
import path from "node:path";
import { Miniflare } from "miniflare";

// startWorker runs the Worker in dir on 127.0.0.1: the Table service on
// ports.table, Blob and Queue on sockets of their own (the Worker tells the
// services apart by port, as the development storage does). vars are its
// environment. Durable Object storage lives in persist. Resolves to the
// running Miniflare, whose dispose() stops it.
export async function startWorker({ dir, persist, ports, vars = {} }) {
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: ports.table,
    modulesRoot: dir,
    modules: [
      { type: "ESModule", path: path.join(dir, "worker.mjs") },
      { type: "ESModule", path: path.join(dir, "wasm_exec.js") },
      { type: "CompiledWasm", path: path.join(dir, "app.wasm") },
    ],
    compatibilityDate: "2026-04-01",
    bindings: {
      TABLELAB_PORTS: `${ports.blob},${ports.queue},${ports.table}`,
      ...vars,
    },
    ...(vars.TABLELAB_STORAGE === "memory" ? {} : {
      durableObjects: { OBJECTS: { className: "StoreObject", useSQLite: true } },
      durableObjectsPersist: persist,
    }),
    unsafeDirectSockets: [
      { host: "127.0.0.1", port: ports.blob },
      { host: "127.0.0.1", port: ports.queue },
    ],
  });
  try {
    await mf.ready;
  } catch (e) {
    await mf.dispose().catch(() => {});
    throw e;
  }
  return mf;
}

// freePorts asks the system for n free ports on 127.0.0.1.
export async function freePorts(n) {
  const net = await import("node:net");
  const servers = [];
  for (let i = 0; i < n; i++) {
    const s = net.createServer();
    await new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
    servers.push(s);
  }
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

// startOnFreePorts is startWorker on three ports free a moment ago, tried
// again on others when one was taken meanwhile (the machine is shared).
// Resolves to {mf, ports}.
export async function startOnFreePorts(opts) {
  for (let attempt = 1; ; attempt++) {
    const [blob, queue, table] = await freePorts(3);
    const ports = { blob, queue, table };
    try {
      return { mf: await startWorker({ ...opts, ports }), ports };
    } catch (e) {
      if (e?.code !== "ERR_ADDRESS_IN_USE" || attempt === 5) throw e;
    }
  }
}
