/**
 * base64url (RFC 4648 §5) without padding. Written out rather than using `btoa`/`Buffer` so the
 * codec behaves the same in every browser and in Node, and so decoding is strict: any character
 * outside the alphabet is an error instead of being skipped silently.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function encodeBase64Url(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    chunk +=
      ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
    // Flush now and then so very long payloads do not build one huge rope string.
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = '';
    }
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    chunk += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    chunk += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  parts.push(chunk);
  return parts.join('');
}

/** Decodes unpadded base64url; returns an error message instead of throwing. */
export function decodeBase64Url(
  text: string,
): { ok: true; bytes: Uint8Array } | { ok: false; message: string } {
  if (text.length % 4 === 1) {
    return { ok: false, message: `a base64url text cannot be ${text.length} characters long (cut short?)` };
  }
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? (LOOKUP[c] as number) : -1;
    if (v < 0) {
      return {
        ok: false,
        message: `character ${JSON.stringify(text[i])} at position ${i} is not base64url (A-Z a-z 0-9 - _)`,
      };
    }
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return { ok: true, bytes: out.subarray(0, o) };
}
