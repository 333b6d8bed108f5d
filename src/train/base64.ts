/**
 * Standard base64 (RFC 4648 §4, with padding) of bytes, for the binary parts of training snapshots
 * and run records inside JSON. Pure and the same in browsers and Node (no Buffer, no atob).
 */
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function bytesToBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return out;
}

/** The bytes, or null when `s` is not padded base64. */
export function base64ToBytes(s: string): Uint8Array | null {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let k = 0;
  for (let i = 0; i < s.length; i += 4) {
    const v = [0, 1, 2, 3].map((j) => (s[i + j] === '=' ? 0 : B64.indexOf(s[i + j] as string)));
    const x =
      ((v[0] as number) << 18) | ((v[1] as number) << 12) | ((v[2] as number) << 6) | (v[3] as number);
    if (k < out.length) out[k++] = (x >> 16) & 255;
    if (k < out.length) out[k++] = (x >> 8) & 255;
    if (k < out.length) out[k++] = x & 255;
  }
  return out;
}
