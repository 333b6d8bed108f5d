import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { AnyValue, ExportTraceServiceRequest, KeyValue } from './otlp-schema.ts';

/**
 * OTLP/JSON → OTLP protobuf (`ExportTraceServiceRequest` bytes), for endpoints that take
 * `application/x-protobuf` only (Arize Phoenix). The bytes are written by the official
 * `@opentelemetry/otlp-transformer` serializer. It serialises the SDK's `ReadableSpan`s, not OTLP
 * JSON, so each span of the JSON request is presented to it in that shape (the fields its writer
 * reads: span context, parent, times as [s, ns], attributes, events, links, status, resource and
 * scope). One JSON model therefore feeds both encodings.
 *
 * What the serializer decides, and the JSON does not say: every span gets `flags` with the
 * "has is_remote" bit (0x100) set, and a number attribute is written as `int_value` when it is an
 * integer, as `double_value` otherwise (the JSON side makes the same choice, otlp-export.ts).
 * Integers beyond 2^53 lose precision on the way (JavaScript numbers); Baton writes none.
 */

type Serializer = typeof ProtobufTraceSerializer;
type SdkSpan = Parameters<Serializer['serializeRequest']>[0][number];

type SdkValue = string | number | boolean | SdkValue[] | { [k: string]: SdkValue } | Uint8Array | undefined;

function sdkValue(v: AnyValue | undefined): SdkValue {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(sdkValue);
  if (v.kvlistValue) return sdkAttributes(v.kvlistValue.values);
  if (v.bytesValue !== undefined) return base64Bytes(v.bytesValue);
  return undefined;
}

function base64Bytes(b64: string): Uint8Array {
  const bin = atob(b64.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function sdkAttributes(list: readonly KeyValue[] | undefined): Record<string, SdkValue> {
  const out: Record<string, SdkValue> = {};
  for (const kv of list ?? []) out[kv.key] = sdkValue(kv.value);
  return out;
}

/** Unix nanoseconds (decimal string or number) → the SDK's HrTime [seconds, nanoseconds]. */
function hrTime(ns: string | number): [number, number] {
  const big = typeof ns === 'number' ? BigInt(Math.trunc(ns)) : BigInt(ns);
  return [Number(big / 1_000_000_000n), Number(big % 1_000_000_000n)];
}

/** The protobuf encoding of an OTLP/JSON request, as `toOtlpJson` writes it. */
export function toOtlpProtobuf(request: ExportTraceServiceRequest): Uint8Array {
  const spans: SdkSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    // The serializer groups spans by resource and scope object identity: one object each.
    const resource = {
      attributes: sdkAttributes(rs.resource?.attributes),
      ...(rs.schemaUrl ? { schemaUrl: rs.schemaUrl } : {}),
    };
    for (const ss of rs.scopeSpans ?? []) {
      const scope = {
        name: ss.scope?.name ?? '',
        ...(ss.scope?.version ? { version: ss.scope.version } : {}),
        ...(ss.schemaUrl ? { schemaUrl: ss.schemaUrl } : {}),
      };
      for (const s of ss.spans ?? []) {
        const context = { traceId: s.traceId.toLowerCase(), spanId: s.spanId.toLowerCase(), traceFlags: 0 };
        const start = hrTime(s.startTimeUnixNano);
        const end = hrTime(s.endTimeUnixNano);
        const span = {
          name: s.name,
          // The API's SpanKind has no "unspecified": OTLP kind k is API kind k − 1.
          kind: s.kind === undefined || s.kind === 0 ? undefined : s.kind - 1,
          spanContext: () => context,
          ...(s.parentSpanId
            ? {
                parentSpanContext: {
                  traceId: context.traceId,
                  spanId: s.parentSpanId.toLowerCase(),
                  traceFlags: 0,
                },
              }
            : {}),
          startTime: start,
          endTime: end,
          duration: [0, 0],
          ended: true,
          status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
          attributes: sdkAttributes(s.attributes),
          links: (s.links ?? []).map((l) => ({
            context: { traceId: l.traceId.toLowerCase(), spanId: l.spanId.toLowerCase(), traceFlags: 0 },
            attributes: sdkAttributes(l.attributes),
            droppedAttributesCount: l.droppedAttributesCount ?? 0,
          })),
          events: (s.events ?? []).map((e) => ({
            time: hrTime(e.timeUnixNano),
            name: e.name,
            attributes: sdkAttributes(e.attributes),
            droppedAttributesCount: e.droppedAttributesCount ?? 0,
          })),
          resource,
          instrumentationScope: scope,
          droppedAttributesCount: s.droppedAttributesCount ?? 0,
          droppedEventsCount: s.droppedEventsCount ?? 0,
          droppedLinksCount: s.droppedLinksCount ?? 0,
        };
        spans.push(span as unknown as SdkSpan);
      }
    }
  }
  return ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array(0);
}
