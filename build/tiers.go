package main

import (
	"github.com/tablelab/tablelab/build/site/sitecheck"
	"github.com/tablelab/tablelab/build/testrun"
	"github.com/tablelab/tablelab/build/wasm"
	"github.com/tablelab/tablelab/build/worker"
)

// tiers are the test command's checks, in the order they run. A new kind
// of check is one entry here: a name and a func returning its tally.
var tiers = []testrun.Tier{
	{Name: "npm ci (the JS SDK the tests use)", Run: testrun.NpmInstall},
	{Name: "go vet", Run: testrun.GoVet},
	{Name: "go test (unit, fuzz seeds, Go SDK conformance, crash recovery)", Run: testrun.GoTests},
	{Name: "go test -race (the engine and the protocol, for data races)", Run: testrun.Race},
	{Name: "cross-build the server (darwin, windows, linux/arm64)", Run: testrun.CrossBuild},
	{Name: "wasm build of the core (GOOS=js)", Run: testrun.WasmBuild},
	{Name: "wasm tests of the core (GOOS=js, under Node)", Run: testrun.WasmTests},
	{Name: "wasm: the browser engine's size budget, its worker under Node, the benchmark", Run: wasm.Tier},
	{Name: "JS SDK walk against the real server", Run: testrun.JSWalk},
	{Name: "Python SDK walk (Debian's python3-azure) against the real server: tables, queues, blobs", Run: testrun.PythonWalk},
	{Name: "worker: the Cloudflare Worker under workerd (its size, the SDK walks, heap, panics, restarts, partitions, the docs' examples)", Run: worker.Tier},
	{Name: "README examples, run as written (curl, and JavaScript in a fresh npm folder)", Run: testrun.README},
	{Name: "playground units (node --test in site/play)", Run: testrun.PlayUnits},
	{Name: "site: build dist/ and check its pages, links and engine files", Run: sitecheck.Tier},
	// These two need dist/, which the site build writes.
	{Name: "browser: the site in headless Chromium", Run: testrun.Browser},
	{Name: "parity: the site's examples in Node with the real SDK", Run: testrun.Parity},
}
