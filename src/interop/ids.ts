import { hashString } from '../core/rng.ts';

/**
 * Deterministic OTLP ids: the same Baton trace always exports the same trace and span ids, so a
 * re-export replaces rather than duplicates it in a backend that deduplicates by id, and tests
 * can compare exports byte for byte. Hex of 32-bit string hashes; never all zeros (invalid in
 * OTLP).
 */
function hexWords(key: string, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) out += hashString(`${key}\u0001${i}`).toString(16).padStart(8, '0');
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** 16 bytes, 32 hex digits. */
export function otlpTraceId(batonTraceId: string): string {
  return hexWords(`trace\u0002${batonTraceId}`, 4);
}

/** 8 bytes, 16 hex digits, unique per (trace, key) for practical purposes. */
export function otlpSpanId(batonTraceId: string, key: string): string {
  return hexWords(`span\u0002${batonTraceId}\u0002${key}`, 2);
}
