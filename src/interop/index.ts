/**
 * Baton ⇄ other tools' trace and training formats: OpenTelemetry GenAI (OTLP/JSON and OTLP
 * protobuf) export and import, and verl RL datasets. Pure: the bytes are built here; files and
 * network belong to the CLI, the store's services and `executor/llm`'s `sendOtlp`. See README.md
 * in this folder and docs/interop.md.
 */
export { toOtlpJson, providerName, OTLP_SCOPE } from './otlp-export.ts';
export {
  importOtlpText,
  importOtlpValue,
  looksLikeOtlp,
  OTLP_IMPORT_LIMITS,
  type OtlpImportItem,
  type OtlpImportOutcome,
} from './otlp-import.ts';
export {
  ExportTraceServiceRequestSchema,
  StrictExportTraceServiceRequestSchema,
  OTLP_LIMITS,
  type ExportTraceServiceRequest,
  type OtlpSpan,
} from './otlp-schema.ts';
export { otlpTraceId, otlpSpanId } from './ids.ts';
export { toOtlpProtobuf } from './otlp-protobuf.ts';
export {
  VERL_COLUMNS,
  VERL_DATA_SOURCE,
  VERL_SCHEMA,
  verlParquet,
  verlRows,
  type VerlOptions,
  type VerlRow,
} from './verl.ts';
export {
  ORCHESTRATOR_PROMPT_VERSION,
  orchestratorMessages,
  orchestratorSystemPrompt,
  type DegreeOfMas,
} from './orchestrator-prompt.ts';
