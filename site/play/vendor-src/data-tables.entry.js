// The real @azure/data-tables, plus the two pieces of its pipeline package
// an HTTP client of our own needs to build a response the SDK accepts.
export * from "@azure/data-tables";
export { createHttpHeaders } from "@azure/core-rest-pipeline";
