/**
 * The pure half of the provider orchestrator (provider-designer.ts): reading a reply as a design,
 * the repair message that sends the validator's numbered problems back, the attempt record, the
 * designer record of the whole loop and the worst case it can spend. No network here.
 */
import type { Design, Designer, ProviderAttempt } from '../core/trace.ts';
import { readSchemaReply } from '../design/json-schema.ts';
import { formatReport, parseDesign } from '../design/parse.ts';
import {
  costOf,
  estimatePromptTokens,
  type Budget,
  type ChatMessage,
  type LlmError,
  type PriceTable,
} from './llm/index.ts';

export type DomChoice = 'low' | 'high' | 'auto';

/**
 * What the provider is asked to write: MAS-Orchestra XML; the design's JSON schema
 * (`response_format`); or `auto`, the JSON schema where the preset's server is known to take
 * `response_format` with a schema (`SCHEMA_PRESETS`), XML elsewhere.
 */
export type DesignOutputChoice = 'xml' | 'json-schema' | 'auto';
export const DESIGN_OUTPUTS = ['xml', 'json-schema', 'auto'] as const satisfies readonly DesignOutputChoice[];
export type DesignOutput = 'xml' | 'json-schema';

/**
 * Presets whose servers document `response_format: { type: 'json_schema' }` on their
 * OpenAI-compatible chat endpoint (see docs/orchestrator.md). Anything else gets XML under `auto`.
 */
export const SCHEMA_PRESETS: ReadonlySet<string> = new Set([
  'openai',
  'openrouter',
  'ollama',
  'lmstudio',
  'llamacpp',
  'vllm',
]);

/** The output `choice` means for an endpoint of preset `presetId` (unknown: not a preset). */
export function resolveDesignOutput(choice: DesignOutputChoice, presetId?: string): DesignOutput {
  if (choice === 'auto')
    return presetId !== undefined && SCHEMA_PRESETS.has(presetId) ? 'json-schema' : 'xml';
  return choice;
}

/** Whether a failed call is the server refusing `response_format` (a 400 or 422 to the request). */
export const refusedSchema = (e: LlmError): boolean =>
  e.kind === 'http' && (e.status === 400 || e.status === 422);

/** Longest raw output kept per attempt in a trace (the whole reply is read; the record is bounded). */
export const MAX_ATTEMPT_CHARS = 200_000;
/** Problems kept per attempt, and sent back in a repair message. */
export const MAX_PROBLEMS = 50;
const MAX_LINE = 2_000;
/** The raw output echoed back to the model in a repair turn. */
const MAX_ECHO_CHARS = 20_000;

export const DEFAULT_REPAIR_TURNS = 2;
export const MAX_REPAIR_TURNS = 10;

/** The design in a reply, or the problems (one per line) that say why there is none. */
export function readProviderReply(
  content: string,
  dom: DomChoice,
  output: DesignOutput = 'xml',
): { design: Design | null; problems: string[] } {
  if (content.trim() === '') return { design: null, problems: ['parse error: the reply was empty.'] };
  const text = output === 'json-schema' ? readSchemaReply(content) : content;
  const report = parseDesign(text, dom === 'auto' ? undefined : dom);
  const problems = formatReport(report)
    .slice(0, MAX_PROBLEMS)
    .map((l) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}…` : l));
  if (report.design) return { design: report.design, problems: [] };
  return { design: null, problems: problems.length > 0 ? problems : ['parse error: no design was found.'] };
}

/** The messages of a repair turn: the model's reply, then its problems, numbered, as text. */
export function repairMessages(rawOutput: string, problems: readonly string[]): ChatMessage[] {
  const echoed =
    rawOutput.length > MAX_ECHO_CHARS ? `${rawOutput.slice(0, MAX_ECHO_CHARS)}\n[… cut]` : rawOutput;
  const numbered = problems
    .slice(0, MAX_PROBLEMS)
    .map((p, i) => `${i + 1}. ${p}`)
    .join('\n');
  return [
    { role: 'assistant', content: echoed },
    {
      role: 'user',
      content: `That design is not valid. The validator found ${problems.length === 1 ? 'this problem' : `these ${problems.length} problems`}:\n${numbered}\n\nWrite the whole corrected design again, in the same format and nothing else.`,
    },
  ];
}

/** `kind: message` of a failed call, for the trace and the page. */
export function describeLlmError(error: LlmError): string {
  return `${error.kind}: ${error.message}`.slice(0, 10_000);
}

/** What a budget has spent and holds, for a refusal: "spent 1200 tokens ($0.0012); held 0 tokens ($0.0000)". */
export function budgetState(budget: Budget): string {
  const s = budget.spent;
  const h = budget.reserved;
  return `spent ${s.tokens} tokens ($${s.usd.toFixed(4)}), held by calls in flight ${h.tokens} tokens ($${h.usd.toFixed(4)})`;
}

export const clipOutput = (raw: string): string =>
  raw.length > MAX_ATTEMPT_CHARS
    ? `${raw.slice(0, MAX_ATTEMPT_CHARS)}\n[… ${raw.length - MAX_ATTEMPT_CHARS} characters cut]`
    : raw;

/** The worst case the loop may spend: every attempt at its prompt estimate plus `maxTokens`. */
export function designBudgetPreview(o: {
  messages: readonly { content: string }[];
  maxTokens: number;
  repairTurns: number;
  model: string;
  prices: PriceTable;
}): { calls: number; tokens: number; usd: number | undefined } {
  const calls = o.repairTurns + 1;
  const prompt = estimatePromptTokens(o.messages.map((m) => ({ role: 'user' as const, content: m.content })));
  let tokens = 0;
  let usd: number | undefined = 0;
  for (let i = 0; i < calls; i++) {
    // Each repair turn adds the previous reply (at most maxTokens) and a problem list to the prompt.
    const promptTokens = prompt + i * (o.maxTokens + 400);
    tokens += promptTokens + o.maxTokens;
    const c = costOf({ promptTokens, completionTokens: o.maxTokens }, o.model, o.prices);
    usd = c === undefined || usd === undefined ? undefined : usd + c;
  }
  return { calls, tokens, usd };
}

export interface LoopRecordInput {
  model: string;
  provider: string;
  prompt: string;
  dom: DomChoice;
  temperature: number;
  seed?: number;
  repairTurns: number;
  attempts: ProviderAttempt[];
  usedAttempt: number | null;
  failure?: string;
  interrupted: boolean;
  /** What the used (else the last) attempt was asked to write. Default `xml`. */
  output?: DesignOutput;
  /** Why the JSON schema was dropped for XML (the server refused `response_format`). */
  outputFallback?: string;
}

/** The designer record of a provider-written design (trace.ts `orchestrator` with provider fields). */
export function providerDesigner(o: LoopRecordInput): Extract<Designer, { kind: 'orchestrator' }> {
  const shown = o.usedAttempt !== null ? o.attempts[o.usedAttempt] : o.attempts[o.attempts.length - 1];
  let promptTokens = 0;
  let completionTokens = 0;
  let cost: number | undefined = 0;
  let ms = 0;
  for (const a of o.attempts) {
    promptTokens += a.promptTokens;
    completionTokens += a.completionTokens;
    cost = a.costUsd === undefined || cost === undefined ? undefined : cost + a.costUsd;
    ms += a.latencyMs;
  }
  const finish = shown?.finishReason;
  return {
    kind: 'orchestrator',
    model: o.model.slice(0, 10_000),
    prompt: o.prompt,
    rawOutput: shown?.rawOutput ?? '',
    parseErrors: shown?.problems ?? [],
    dom: o.dom,
    temperature: o.temperature,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    valid: o.usedAttempt !== null,
    ...(o.interrupted
      ? { stopReason: 'interrupted' as const }
      : finish === 'length'
        ? { stopReason: 'max-tokens' as const }
        : finish
          ? { stopReason: 'eos' as const }
          : {}),
    timings: {
      generateMs: ms,
      tokens: completionTokens,
      tokensPerSecond: ms > 0 ? (completionTokens * 1000) / ms : 0,
    },
    provider: o.provider.slice(0, 10_000),
    output: o.output ?? 'xml',
    ...(o.outputFallback !== undefined ? { outputFallback: o.outputFallback.slice(0, 10_000) } : {}),
    repairTurns: o.repairTurns,
    attempts: o.attempts,
    usedAttempt: o.usedAttempt,
    ...(o.failure !== undefined ? { failure: o.failure.slice(0, 10_000) } : {}),
    usage: {
      promptTokens,
      completionTokens,
      ...(cost !== undefined ? { costUsd: Math.round(cost * 1e12) / 1e12 } : {}),
      calls: o.attempts.length,
    },
  };
}
