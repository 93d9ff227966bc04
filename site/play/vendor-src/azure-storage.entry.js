// The real Azure Storage SDKs the playground runs (tables, blobs, queues),
// one namespace each, so that a name two of them export (newPipeline,
// Pipeline, …) stays unambiguous; the runner decides which one code sees.
// createHttpHeaders is the piece of their shared pipeline package an HTTP
// client of our own needs to build a response the SDKs accept.
export * as tables from "@azure/data-tables";
export * as blobs from "@azure/storage-blob";
export * as queues from "@azure/storage-queue";
export { createHttpHeaders } from "@azure/core-rest-pipeline";
