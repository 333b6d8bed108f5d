/**
 * A small protobuf reader for OTLP `ExportTraceServiceRequest` bytes, used only by tests and the
 * local OTLP receiver (tests/server/otlp-receiver.ts) to check what Baton's exporter and sender put
 * on the wire. It turns the bytes into the OTLP/JSON mapping (hex ids, int64 as decimal strings),
 * so a test can compare it with the JSON export. Field numbers from opentelemetry-proto:
 * collector/trace/v1/trace_service.proto, trace/v1/trace.proto, common/v1/common.proto,
 * resource/v1/resource.proto. Written here because no protobuf runtime is installed and
 * @opentelemetry/otlp-transformer ships an encoder for requests, not a decoder.
 */

type Field = {
  n: number;
  wire: number;
  varint?: bigint;
  bytes?: Uint8Array;
  fixed64?: DataView;
  fixed32?: number;
};

function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const n = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) out.push({ n, wire, varint: varint() });
    else if (wire === 1) {
      if (pos + 8 > buf.length) throw new Error('truncated fixed64');
      out.push({ n, wire, fixed64: new DataView(buf.buffer, buf.byteOffset + pos, 8) });
      pos += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      if (pos + len > buf.length) throw new Error('truncated bytes');
      out.push({ n, wire, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 5) {
      if (pos + 4 > buf.length) throw new Error('truncated fixed32');
      out.push({ n, wire, fixed32: new DataView(buf.buffer, buf.byteOffset + pos, 4).getUint32(0, true) });
      pos += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const utf8 = new TextDecoder();
const text = (f: Field): string => utf8.decode(f.bytes);
const hex = (f: Field): string => [...f.bytes!].map((b) => b.toString(16).padStart(2, '0')).join('');
const u64 = (f: Field): string => f.fixed64!.getBigUint64(0, true).toString();

type Json = Record<string, unknown>;

function anyValue(buf: Uint8Array): Json {
  const out: Json = {};
  for (const f of fields(buf)) {
    if (f.n === 1) out.stringValue = text(f);
    else if (f.n === 2) out.boolValue = f.varint !== 0n;
    else if (f.n === 3) out.intValue = BigInt.asIntN(64, f.varint!).toString();
    else if (f.n === 4) out.doubleValue = f.fixed64!.getFloat64(0, true);
    else if (f.n === 5)
      out.arrayValue = {
        values: fields(f.bytes!)
          .filter((x) => x.n === 1)
          .map((x) => anyValue(x.bytes!)),
      };
    else if (f.n === 6)
      out.kvlistValue = {
        values: fields(f.bytes!)
          .filter((x) => x.n === 1)
          .map((x) => keyValue(x.bytes!)),
      };
    else if (f.n === 7) out.bytesValue = Buffer.from(f.bytes!).toString('base64');
  }
  return out;
}

function keyValue(buf: Uint8Array): Json {
  const out: Json = { key: '' };
  for (const f of fields(buf)) {
    if (f.n === 1) out.key = text(f);
    else if (f.n === 2) out.value = anyValue(f.bytes!);
  }
  return out;
}

function message(buf: Uint8Array, spec: Record<number, [string, (f: Field) => unknown, boolean?]>): Json {
  const out: Json = {};
  for (const f of fields(buf)) {
    const s = spec[f.n];
    if (!s) continue;
    const [name, read, repeated] = s;
    if (repeated) ((out[name] ??= []) as unknown[]).push(read(f));
    else out[name] = read(f);
  }
  return out;
}

const num = (f: Field): number => Number(f.varint ?? f.fixed32);
const kvs = (f: Field): Json => keyValue(f.bytes!);

const status = (f: Field): Json => message(f.bytes!, { 2: ['message', text], 3: ['code', num] });
const event = (f: Field): Json =>
  message(f.bytes!, {
    1: ['timeUnixNano', u64],
    2: ['name', text],
    3: ['attributes', kvs, true],
    4: ['droppedAttributesCount', num],
  });
const link = (f: Field): Json =>
  message(f.bytes!, {
    1: ['traceId', hex],
    2: ['spanId', hex],
    3: ['traceState', text],
    4: ['attributes', kvs, true],
    5: ['droppedAttributesCount', num],
    6: ['flags', num],
  });
const span = (f: Field): Json =>
  message(f.bytes!, {
    1: ['traceId', hex],
    2: ['spanId', hex],
    3: ['traceState', text],
    4: ['parentSpanId', hex],
    5: ['name', text],
    6: ['kind', num],
    7: ['startTimeUnixNano', u64],
    8: ['endTimeUnixNano', u64],
    9: ['attributes', kvs, true],
    10: ['droppedAttributesCount', num],
    11: ['events', event, true],
    12: ['droppedEventsCount', num],
    13: ['links', link, true],
    14: ['droppedLinksCount', num],
    15: ['status', status],
    16: ['flags', num],
  });
const scope = (f: Field): Json =>
  message(f.bytes!, {
    1: ['name', text],
    2: ['version', text],
    3: ['attributes', kvs, true],
    4: ['droppedAttributesCount', num],
  });
const scopeSpans = (f: Field): Json =>
  message(f.bytes!, { 1: ['scope', scope], 2: ['spans', span, true], 3: ['schemaUrl', text] });
const resource = (f: Field): Json =>
  message(f.bytes!, { 1: ['attributes', kvs, true], 2: ['droppedAttributesCount', num] });
const resourceSpans = (f: Field): Json =>
  message(f.bytes!, {
    1: ['resource', resource],
    2: ['scopeSpans', scopeSpans, true],
    3: ['schemaUrl', text],
  });

/** `ExportTraceServiceRequest` bytes → its OTLP/JSON mapping. Throws on malformed bytes. */
export function decodeExportTraceServiceRequest(buf: Uint8Array): Json {
  return message(buf, { 1: ['resourceSpans', resourceSpans, true] });
}

/**
 * Both encodings in one comparable form: no default values (0 counts, empty lists, unset flags),
 * `flags` left out (the protobuf serializer always sets the "has is_remote" bit), int64 as strings.
 */
export function canonicalOtlp(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalOtlp);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'flags') continue;
    if (/^dropped.*Count$/.test(k) && (v === 0 || v === undefined)) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if ((k === 'parentSpanId' || k === 'message' || k === 'schemaUrl') && v === '') continue;
    if (k === 'kind' && v === 0) continue;
    if (v === undefined) continue;
    out[k] = canonicalOtlp(v);
  }
  return out;
}
