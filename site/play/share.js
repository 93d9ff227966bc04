// Share links: a program (and, on request, a data snapshot) travels in the
// URL's fragment, so a link reopens the same state with no server. Text is
// UTF-8, compressed with deflate-raw and written in base64url, which needs
// no escaping in a fragment.

/** encodeText compresses text into a base64url string. */
export async function encodeText(text) {
  const input = new Blob([new TextEncoder().encode(text)]).stream();
  const packed = await new Response(input.pipeThrough(new CompressionStream("deflate-raw"))).arrayBuffer();
  return toBase64url(new Uint8Array(packed));
}

/**
 * decodeText reverses encodeText. It rejects with a SyntaxError when the
 * string is not base64url or does not inflate to UTF-8 (a truncated or
 * edited link), so the caller can say so instead of opening garbage.
 */
export async function decodeText(encoded) {
  const bytes = fromBase64url(encoded);
  try {
    const input = new Blob([bytes]).stream();
    const plain = await new Response(input.pipeThrough(new DecompressionStream("deflate-raw"))).arrayBuffer();
    return new TextDecoder("utf-8", { fatal: true }).decode(plain);
  } catch (err) {
    throw new SyntaxError(`share link is damaged: ${err.message}`);
  }
}

/**
 * shareHash builds a fragment (without "#") holding code and, when data is
 * given, a snapshot in the format of the engine's export.
 */
export async function shareHash(code, data) {
  const params = new URLSearchParams();
  params.set("code", await encodeText(code));
  if (data !== undefined && data !== null) params.set("data", await encodeText(data));
  return params.toString();
}

/**
 * readShareHash reads a fragment made by shareHash (with or without the
 * "#"); it resolves to {code, data} (data undefined when the link has
 * none), or null when the fragment holds no program.
 */
export async function readShareHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const code = params.get("code");
  if (!code) return null;
  const data = params.get("data");
  return {
    code: await decodeText(code),
    data: data ? await decodeText(data) : undefined,
  };
}

function toBase64url(bytes) {
  let bin = "";
  // Chunks keep String.fromCharCode's argument count within engine limits
  // for long programs.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) {
    throw new SyntaxError("share link is damaged: not base64url");
  }
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4);
  let bin;
  try {
    bin = atob(b64);
  } catch {
    throw new SyntaxError("share link is damaged: not base64url");
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}
