// Table service requests signed with SharedKeyLite, for the tests that send
// thousands of them: the SDK's own pipeline would take longer than the
// Worker does.
import { createHmac } from "node:crypto";

export const devAccount = "devstoreaccount1";
export const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

// tableRequest sends method to base + path (path begins with /account),
// signed for account with key; body, when given, is sent as JSON.
export async function tableRequest(base, method, path, { body, headers = {}, account = devAccount, key = devKey } = {}) {
  const date = new Date().toUTCString();
  const resource = "/" + account + path.split("?")[0];
  const sig = createHmac("sha256", Buffer.from(key, "base64")).update(`${date}\n${resource}`).digest("base64");
  const init = {
    method,
    headers: {
      "x-ms-date": date,
      "x-ms-version": "2019-02-02",
      authorization: `SharedKeyLite ${account}:${sig}`,
      accept: "application/json;odata=nometadata",
      ...headers,
    },
  };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["content-type"] ??= "application/json";
  }
  return fetch(base + path, init);
}
