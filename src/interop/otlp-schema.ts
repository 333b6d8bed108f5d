import { z } from 'zod';

/**
 * OTLP/JSON: the protobuf JSON mapping of `ExportTraceServiceRequest`, the body of an OTLP/HTTP
 * trace export with `Content-Type: application/json`. The field list comes from
 * opentelemetry-proto: `opentelemetry/proto/collector/trace/v1/trace_service.proto`
 * (ExportTraceServiceRequest), `trace/v1/trace.proto` (ResourceSpans, ScopeSpans, Span,
 * Span.Event, Span.Link, Status), `common/v1/common.proto` (AnyValue, ArrayValue, KeyValueList,
 * KeyValue, InstrumentationScope) and `resource/v1/resource.proto` (Resource). The OTLP
 * specification's JSON rules apply on top of the protobuf mapping: field names in lowerCamelCase,
 * trace and span ids as hex strings (not base64), enums as integers, 64-bit integers as decimal
 * strings (numbers accepted when reading).
 *
 * The export side writes exactly this shape and a test validates every bundled example's export
 * against it; the import side reads untrusted files through it, so every array is bounded.
 */

export const OTLP_LIMITS = {
  spans: 200_000,
  attributes: 2_000,
  events: 10_000,
  links: 10_000,
  /** Nesting of array and kvlist values. */
  depth: 8,
  /** Characters of one string value. */
  text: 2_000_000,
} as const;

const hex = (bytes: number): z.ZodString =>
  z
    .string()
    .regex(new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`), `a ${bytes}-byte id as ${bytes * 2} hex digits`);
export const TraceIdSchema = hex(16);
export const SpanIdSchema = hex(8);

/** A fixed64/int64 in the JSON mapping: a decimal string, or a number from lenient writers. */
export const Int64Schema = z.union([
  z.string().regex(/^-?\d{1,20}$/, 'a decimal integer'),
  z.number().int().finite(),
]);
const Uint32Schema = z.number().int().min(0).max(0xffffffff);

export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
}
export interface KeyValue {
  key: string;
  value?: AnyValue;
}

/**
 * `AnyValue` is a oneof: at most one field may be set (none means an empty value). Doubles may be
 * the strings "NaN", "Infinity", "-Infinity" in the JSON mapping.
 */
export const AnyValueSchema: z.ZodType<AnyValue> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().max(OTLP_LIMITS.text).optional(),
      boolValue: z.boolean().optional(),
      intValue: Int64Schema.optional(),
      doubleValue: z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])]).optional(),
      arrayValue: z
        .object({ values: z.array(AnyValueSchema).max(OTLP_LIMITS.attributes).optional() })
        .optional(),
      kvlistValue: z
        .object({ values: z.array(KeyValueSchema).max(OTLP_LIMITS.attributes).optional() })
        .optional(),
      bytesValue: z
        .string()
        .regex(/^[A-Za-z0-9+/=_-]*$/, 'base64')
        .optional(),
    })
    .refine(
      (v) => Object.values(v).filter((x) => x !== undefined).length <= 1,
      'AnyValue sets at most one field',
    ),
);

export const KeyValueSchema: z.ZodType<KeyValue> = z.lazy(() =>
  z.object({ key: z.string().max(1_000), value: AnyValueSchema.optional() }),
);

const Attributes = z.array(KeyValueSchema).max(OTLP_LIMITS.attributes);

export const EventSchema = z.object({
  timeUnixNano: Int64Schema,
  name: z.string().max(10_000),
  attributes: Attributes.optional(),
  droppedAttributesCount: Uint32Schema.optional(),
});

export const LinkSchema = z.object({
  traceId: TraceIdSchema,
  spanId: SpanIdSchema,
  traceState: z.string().max(10_000).optional(),
  attributes: Attributes.optional(),
  droppedAttributesCount: Uint32Schema.optional(),
  flags: Uint32Schema.optional(),
});

/** Status.code: 0 unset, 1 ok, 2 error. */
export const StatusSchema = z.object({
  message: z.string().max(OTLP_LIMITS.text).optional(),
  code: z.number().int().min(0).max(2).optional(),
});

/** Span.kind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export const SpanSchema = z.object({
  traceId: TraceIdSchema,
  spanId: SpanIdSchema,
  traceState: z.string().max(10_000).optional(),
  /** Empty or absent for a root span. */
  parentSpanId: z.union([SpanIdSchema, z.literal('')]).optional(),
  flags: Uint32Schema.optional(),
  name: z.string().max(10_000),
  kind: z.number().int().min(0).max(5).optional(),
  startTimeUnixNano: Int64Schema,
  endTimeUnixNano: Int64Schema,
  attributes: Attributes.optional(),
  droppedAttributesCount: Uint32Schema.optional(),
  events: z.array(EventSchema).max(OTLP_LIMITS.events).optional(),
  droppedEventsCount: Uint32Schema.optional(),
  links: z.array(LinkSchema).max(OTLP_LIMITS.links).optional(),
  droppedLinksCount: Uint32Schema.optional(),
  status: StatusSchema.optional(),
});

export const InstrumentationScopeSchema = z.object({
  name: z.string().max(10_000).optional(),
  version: z.string().max(10_000).optional(),
  attributes: Attributes.optional(),
  droppedAttributesCount: Uint32Schema.optional(),
});

export const ResourceSchema = z.object({
  attributes: Attributes.optional(),
  droppedAttributesCount: Uint32Schema.optional(),
});

export const ScopeSpansSchema = z.object({
  scope: InstrumentationScopeSchema.optional(),
  spans: z.array(SpanSchema).max(OTLP_LIMITS.spans).optional(),
  schemaUrl: z.string().max(10_000).optional(),
});

export const ResourceSpansSchema = z.object({
  resource: ResourceSchema.optional(),
  scopeSpans: z.array(ScopeSpansSchema).max(10_000).optional(),
  schemaUrl: z.string().max(10_000).optional(),
});

export const ExportTraceServiceRequestSchema = z.object({
  resourceSpans: z.array(ResourceSpansSchema).max(10_000).optional(),
});

/** The same shapes, strict: what Baton writes has no field outside the mapping. */
export const StrictExportTraceServiceRequestSchema = z.strictObject({
  resourceSpans: z.array(
    z.strictObject({
      resource: z.strictObject(ResourceSchema.shape).optional(),
      scopeSpans: z.array(
        z.strictObject({
          scope: z.strictObject(InstrumentationScopeSchema.shape).optional(),
          spans: z.array(
            z.strictObject({
              ...SpanSchema.shape,
              events: z.array(z.strictObject(EventSchema.shape)).optional(),
              links: z.array(z.strictObject(LinkSchema.shape)).optional(),
              status: z.strictObject(StatusSchema.shape).optional(),
            }),
          ),
          schemaUrl: z.string().optional(),
        }),
      ),
      schemaUrl: z.string().optional(),
    }),
  ),
});

export type OtlpEvent = z.infer<typeof EventSchema>;
export type OtlpLink = z.infer<typeof LinkSchema>;
export type OtlpSpan = z.infer<typeof SpanSchema>;
export type OtlpResourceSpans = z.infer<typeof ResourceSpansSchema>;
export type ExportTraceServiceRequest = z.infer<typeof ExportTraceServiceRequestSchema>;
