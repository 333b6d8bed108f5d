/**
 * Exports to other tools that the UI offers, as plain async helpers (the UI may not import
 * src/interop itself). src/interop loads on first use, so the trace page does not carry the
 * OpenTelemetry code until someone asks for an OTLP file.
 */
import type { Trace } from '../core/trace.ts';

/** The trace as pretty-printed OTLP/JSON (GenAI + OpenInference attributes, secrets removed). */
export async function otlpJsonOf(trace: Trace): Promise<string> {
  const { toOtlpJson } = await import('../interop/index.ts');
  return `${JSON.stringify(toOtlpJson([trace]), null, 2)}\n`;
}

/** Many traces (a whole evaluation) in one OTLP/JSON file: one resource and scope, every span. */
export async function otlpJsonOfTraces(traces: readonly Trace[]): Promise<string> {
  const { toOtlpJson } = await import('../interop/index.ts');
  return `${JSON.stringify(toOtlpJson(traces), null, 2)}\n`;
}
