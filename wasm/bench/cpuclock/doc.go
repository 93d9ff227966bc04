// Package cpuclock reads the CPU time a benchmark's process has used, the
// same way natively and under Node, so that the wasm benchmarks' columns
// are measured alike.
package cpuclock
