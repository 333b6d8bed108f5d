/**
 * Reading OTLP attributes (otlp-import.ts): an AnyValue as plain JSON, and `Attrs`, the attributes
 * of one span, resource or event, which remembers which keys a rule read so that the rest can be
 * kept as notes.
 */
import type { z } from 'zod';
import type { AnyValue, KeyValue } from './otlp-schema.ts';

export type Js = string | number | boolean | null | Js[] | { [k: string]: Js };

/** An AnyValue as plain JSON (int64 strings become numbers when exact, else stay strings). */
export function anyToJs(v: AnyValue | undefined, depth = 0): Js {
  if (!v || depth > 16) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if (v.doubleValue !== undefined)
    return typeof v.doubleValue === 'number' ? v.doubleValue : String(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map((x) => anyToJs(x, depth + 1));
  if (v.kvlistValue) {
    const o: Record<string, Js> = {};
    for (const kv of v.kvlistValue.values ?? []) o[kv.key] = anyToJs(kv.value, depth + 1);
    return o;
  }
  if (v.bytesValue !== undefined) return v.bytesValue;
  return null;
}

/** The attributes of one span (or resource, or event), remembering which ones a rule read. */
export class Attrs {
  private readonly map = new Map<string, AnyValue | undefined>();
  private readonly used = new Set<string>();
  constructor(list: readonly KeyValue[] | undefined) {
    for (const kv of list ?? []) this.map.set(kv.key, kv.value);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  /** Marks a key as read without reading it (a duplicate of something read elsewhere). */
  consume(key: string): void {
    if (this.map.has(key)) this.used.add(key);
  }
  consumePrefix(prefix: string): void {
    for (const k of this.map.keys()) if (k.startsWith(prefix)) this.used.add(k);
  }
  raw(key: string): AnyValue | undefined {
    if (!this.map.has(key)) return undefined;
    this.used.add(key);
    return this.map.get(key);
  }
  str(key: string): string | undefined {
    const v = this.raw(key);
    if (!v) return undefined;
    if (v.stringValue !== undefined) return v.stringValue;
    const js = anyToJs(v);
    return js === null ? undefined : typeof js === 'string' ? js : JSON.stringify(js);
  }
  num(key: string): number | undefined {
    const v = this.raw(key);
    if (!v) return undefined;
    const n =
      v.intValue !== undefined
        ? Number(v.intValue)
        : typeof v.doubleValue === 'number'
          ? v.doubleValue
          : v.stringValue !== undefined && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v.stringValue)
            ? Number(v.stringValue)
            : NaN;
    return Number.isFinite(n) ? n : undefined;
  }
  bool(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v?.boolValue !== undefined) return v.boolValue;
    if (v?.stringValue === 'true') return true;
    if (v?.stringValue === 'false') return false;
    return undefined;
  }
  strings(key: string): string[] | undefined {
    const js = anyToJs(this.raw(key));
    return Array.isArray(js) ? js.filter((x): x is string => typeof x === 'string') : undefined;
  }
  /** A JSON-valued attribute (a JSON string, or structured AnyValue), parsed with `schema`. */
  json<T>(key: string, schema: z.ZodType<T>): T | undefined {
    const v = this.raw(key);
    if (!v) return undefined;
    let js: unknown;
    if (v.stringValue !== undefined) {
      try {
        js = JSON.parse(v.stringValue);
      } catch {
        return undefined;
      }
    } else js = anyToJs(v);
    const parsed = schema.safeParse(js);
    return parsed.success ? parsed.data : undefined;
  }
  /** Attributes no rule read, as plain JSON. */
  unread(): Record<string, Js> {
    const out: Record<string, Js> = {};
    for (const [k, v] of this.map) if (!this.used.has(k)) out[k] = anyToJs(v);
    return out;
  }
}

export function toBig(v: string | number): bigint {
  try {
    return typeof v === 'number' ? BigInt(Math.trunc(v)) : BigInt(v);
  } catch {
    return 0n;
  }
}

export const shortStr = (s: string | undefined, max = 10_000): string | undefined =>
  s === undefined ? undefined : s.slice(0, max);

/** Builds one Baton trace from the spans of one OTLP trace. */
