// An HttpClient for the Azure Storage SDKs (@azure/data-tables,
// @azure/storage-queue, @azure/storage-blob) that hands each request, as
// one HTTP/1.1 message of bytes, to the engine instead of the network. The
// SDKs build, sign and parse exactly what they would for Azure; only the
// transport differs.

import { formatRequestBytes, parseResponseBytes } from "./wire.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * engineHttpClient returns an HttpClient whose sendRequest writes the
 * SDK's request as an HTTP/1.1 message, passes it to send (which resolves
 * to the engine's response, bytes or text) and turns the answer into the
 * SDK's response. createHttpHeaders is the SDKs' own, so the headers
 * behave as the SDKs' code expects.
 *
 * It speaks both shapes the SDKs use: @azure/core-rest-pipeline's
 * (PipelineRequest in, PipelineResponse out; the Table SDK) and the older
 * one the storage SDKs still take as their httpClient option (a
 * WebResource whose headers have headersArray(), and a response whose
 * headers have toJson()). A response the request asked to stream (a
 * blob's download) comes as blobBody, a Promise of a Blob, as a browser's
 * fetch gives it.
 */
export function engineHttpClient(send, createHttpHeaders) {
  return {
    async sendRequest(request) {
      if (request.abortSignal?.aborted) {
        throw abortError();
      }
      const legacy = typeof request.headers?.headersArray === "function";
      const fields = legacy ? request.headers.headersArray().map((h) => [h.name, h.value]) : request.headers;
      const message = formatRequestBytes(request.method, request.url, fields, await bodyBytes(request.body));
      const sent = await send(message);
      const answer = parseResponseBytes(typeof sent === "string" ? encoder.encode(sent) : sent);
      if (request.abortSignal?.aborted) {
        throw abortError();
      }
      const headers = createHttpHeaders(answer.headers);
      if (legacy) headers.toJson = (options) => headers.toJSON(options);
      const response = { request, status: answer.status, headers };
      if (streamed(request, answer.status)) {
        const type = answer.headers["content-type"] ?? "";
        response.blobBody = Promise.resolve(new Blob([answer.body], { type }));
      } else {
        response.bodyAsText = decoder.decode(answer.body);
      }
      return response;
    },
  };
}

// streamed reports whether the request asked for its response with this
// status as a stream rather than as text.
function streamed(request, status) {
  const codes = request.streamResponseStatusCodes;
  return Boolean(codes && (codes.has(status) || codes.has(Number.POSITIVE_INFINITY)));
}

// bodyBytes reads any body the SDKs send into one Uint8Array: none, text
// (JSON entities, $batch multipart, queue messages' XML), bytes, a Blob (a
// browser upload), or a stream or a function returning one. Anything else
// would be a new SDK feature this transport must learn, so it fails
// loudly.
async function bodyBytes(body) {
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === "function") return bodyBytes(body());
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (typeof Blob !== "undefined" && body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  if (typeof body.getReader === "function" || typeof body[Symbol.asyncIterator] === "function") {
    const chunks = [];
    let n = 0;
    const iterable = typeof body[Symbol.asyncIterator] === "function" ? body : readerChunks(body.getReader());
    for await (const chunk of iterable) {
      const bytes = typeof chunk === "string" ? encoder.encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      chunks.push(bytes);
      n += bytes.length;
    }
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
  throw new TypeError(`engine transport cannot send a ${Object.prototype.toString.call(body)} body`);
}

async function* readerChunks(reader) {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

function abortError() {
  const err = new Error("The operation was aborted.");
  err.name = "AbortError";
  return err;
}
