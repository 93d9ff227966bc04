// An HttpClient for @azure/data-tables (the shape @azure/core-rest-pipeline
// expects) that hands each request, as one string, to the engine instead of
// the network. The SDK builds, signs and parses exactly what it would for
// Azure; only the transport differs.

import { formatRequest, parseResponse } from "./wire.js";

/**
 * engineHttpClient returns an HttpClient whose sendRequest writes the
 * SDK's PipelineRequest as HTTP/1.1 text, passes it to send (which resolves
 * to the engine's response text) and turns the answer into a
 * PipelineResponse. createHttpHeaders is the SDK's own, so the headers
 * behave as the SDK's code expects.
 */
export function engineHttpClient(send, createHttpHeaders) {
  return {
    async sendRequest(request) {
      if (request.abortSignal?.aborted) {
        throw abortError();
      }
      const text = formatRequest(request.method, request.url, request.headers, bodyText(request.body));
      const answer = parseResponse(await send(text));
      if (request.abortSignal?.aborted) {
        throw abortError();
      }
      return {
        request,
        status: answer.status,
        headers: createHttpHeaders(answer.headers),
        bodyAsText: answer.body,
      };
    },
  };
}

// bodyText accepts the bodies the Table SDK sends: none, or text (JSON
// entities, $batch multipart). Anything else would be a new SDK feature
// this transport must learn, so it fails loudly.
function bodyText(body) {
  if (body === undefined || body === null) return "";
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  throw new TypeError(`engine transport cannot send a ${Object.prototype.toString.call(body)} body`);
}

function abortError() {
  const err = new Error("The operation was aborted.");
  err.name = "AbortError";
  return err;
}
