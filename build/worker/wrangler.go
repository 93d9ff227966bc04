package worker

// wranglerTOML is the deployment's configuration. The Durable Object
// class must be declared SQLite-backed in its first migration: a class's
// storage backend cannot change once it has been deployed.
const wranglerTOML = `# tablelab as a Cloudflare Worker (written by go run ./build worker).
# Accounts are secrets: wrangler secret put TABLELAB_ACCOUNTS
# (name:base64key[:key2];…). Then: wrangler deploy
name = "tablelab"
main = "worker.mjs"
compatibility_date = "2026-04-01"

[[rules]]
type = "CompiledWasm"
globs = ["**/*.wasm"]

[vars]
# "memory" keeps the data in each isolate's memory: ephemeral, for demos.
TABLELAB_STORAGE = "durable"

[[durable_objects.bindings]]
name = "OBJECTS"
class_name = "StoreObject"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["StoreObject"]
`
