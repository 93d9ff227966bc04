// What the Blob and Queue walks share: the account that
// STORAGE_CONNECTION_STRING names, fresh resource names, and the check that
// a call fails with the service's status and code.
import assert from "node:assert/strict";

export const conn = process.env.STORAGE_CONNECTION_STRING;
if (!conn) throw new Error("set STORAGE_CONNECTION_STRING");
const field = (name) => new RegExp(`(?:^|;)${name}=([^;]+)`).exec(conn)?.[1];
export const account = field("AccountName");
export const key = field("AccountKey");

// endpointOf returns a service's endpoint ("Blob", "Queue") without its
// trailing slash.
export const endpointOf = (service) => field(`${service}Endpoint`).replace(/\/$/, "");

// noRetry makes a failure show at once rather than after the SDK's retries.
export const noRetry = { retryOptions: { maxTries: 1 } };

let counter = 0;
// name returns a resource name no other call, run or walk has used.
export function name(prefix) {
  counter++;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

// rejects awaits promise and asserts it fails with status and, when given,
// the service's error code; it returns the error.
export async function rejects(promise, status, code) {
  try {
    await promise;
  } catch (err) {
    assert.equal(err.statusCode, status, `status of ${err.message}`);
    if (code) assert.equal(err.code, code, `code of ${err.message}`);
    return err;
  }
  assert.fail(`expected ${status} ${code ?? ""}`);
}
