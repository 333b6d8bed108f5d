import { deflateSync, Inflate, strToU8 } from 'fflate';
import { decodeBase64Url, encodeBase64Url } from './base64url.ts';
import { DICTIONARY_V1_TEXT } from './dictionary-v1.ts';

/**
 * The byte layer of link format 1: UTF-8 text → raw DEFLATE (RFC 1951, no zlib/gzip header)
 * against the v1 preset dictionary → base64url without padding. Both directions are pure and
 * synchronous, and run the same in browsers and Node.
 */

export const DICTIONARY_V1: Uint8Array = strToU8(DICTIONARY_V1_TEXT);

/** Most bytes a payload may inflate to (zip-bomb guard); the trace reader's own cap is similar. */
export const MAX_INFLATED_BYTES = 32 * 1024 * 1024;

/**
 * Compressed input is fed to the inflater in slices of this size, and the output is counted after
 * each one. DEFLATE expands at most ~1032:1, so one slice can overshoot the cap by at most ~4 MB
 * before inflation stops.
 */
const INFLATE_SLICE = 4096;

export type CodecResult<T> = { ok: true; value: T } | { ok: false; message: string };

export function compressText(text: string): string {
  // Level 9: links are written once and read many times. fflate sizes its hash table from the
  // input; a larger `mem` measured no smaller on the bundled traces, only slower.
  const bytes = deflateSync(strToU8(text), { level: 9, dictionary: DICTIONARY_V1 });
  return encodeBase64Url(bytes);
}

export function decompressText(payload: string, maxBytes = MAX_INFLATED_BYTES): CodecResult<string> {
  const decoded = decodeBase64Url(payload);
  if (!decoded.ok) return { ok: false, message: decoded.message };
  if (decoded.bytes.length === 0) return { ok: false, message: 'the link holds no data' };

  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  let tooLarge = false;
  const inflater = new Inflate({ dictionary: DICTIONARY_V1 }, (chunk, final) => {
    total += chunk.length;
    if (total > maxBytes) tooLarge = true;
    else chunks.push(chunk);
    if (final) done = true;
  });
  try {
    const bytes = decoded.bytes;
    for (let i = 0; i < bytes.length && !tooLarge && !done; i += INFLATE_SLICE) {
      const end = Math.min(i + INFLATE_SLICE, bytes.length);
      inflater.push(bytes.subarray(i, end), end === bytes.length);
    }
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return {
      ok: false,
      message: `the compressed data is damaged (${detail}); was the link cut short or edited?`,
    };
  }
  if (tooLarge) {
    return { ok: false, message: `the link expands to more than ${maxBytes} bytes, more than Baton accepts` };
  }
  if (!done) return { ok: false, message: 'the compressed data ends early; was the link cut short?' };

  const joined = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    joined.set(c, offset);
    offset += c.length;
  }
  try {
    return { ok: true, value: new TextDecoder('utf-8', { fatal: true }).decode(joined) };
  } catch {
    return { ok: false, message: 'the decompressed data is not UTF-8 text' };
  }
}
