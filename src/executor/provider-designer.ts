/**
 * A provider as the orchestrator: an OpenAI-compatible model writes the MAS design, in
 * MAS-Orchestra XML, asked with the orchestrator prompt the hub models get (the caller passes
 * `orchestratorMessages` from src/interop, which this floor does not read, exactly as
 * `chatFormat(orchestratorMessages)` gets it), or, where the provider holds output to a JSON schema,
 * as the design's JSON form (`output`; the prompt then gains a note naming the JSON channels, and the
 * request a `response_format`). A server that refuses `response_format` (HTTP 400/422) gets the
 * same turn again asking for XML, and the record says so (`outputFallback`). An invalid design goes back to the model with the
 * validator's numbered problems for at most `repairTurns` more calls. Every call goes through
 * the caller's client, so it counts against the run's budget; every attempt is recorded
 * (provider-design-read.ts builds the record). Never throws: a failed, refused or interrupted call
 * ends the loop with the reason in `failure` and what was written kept in the attempts.
 */
import type { ChatMessage as PromptMessage, Design, ProviderAttempt } from '../core/trace.ts';
import type { Budget, ChatMessage, LlmClient } from './llm/index.ts';
import { SCHEMA_OUTPUT_NOTE, designResponseFormat } from '../design/json-schema.ts';
import {
  DEFAULT_REPAIR_TURNS,
  MAX_REPAIR_TURNS,
  budgetState,
  clipOutput,
  describeLlmError,
  providerDesigner,
  readProviderReply,
  refusedSchema,
  repairMessages,
  resolveDesignOutput,
  type DesignOutput,
  type DesignOutputChoice,
  type DomChoice,
} from './provider-design-read.ts';

export interface ProviderDesignOptions {
  client: LlmClient;
  model: string;
  /** Where the calls go, as the trace shows it: a preset id or the endpoint's host, never a key. */
  provider: string;
  query: string;
  dom: DomChoice;
  /** The orchestrator prompt (src/interop `orchestratorMessages`). `auto` asks with `high`. */
  messages: (query: string, dom: 'low' | 'high') => PromptMessage[];
  /** XML, the design's JSON schema, or `auto` (the schema for presets known to take it). Default `xml`. */
  output?: DesignOutputChoice;
  /** The Settings preset the endpoint comes from (`ollama`, `openai`, …), for `output: 'auto'`. */
  presetId?: string;
  /** Repair turns after the first call (default 2, at most 10). */
  repairTurns?: number;
  temperature?: number;
  /** Completion tokens per call; also what the budget reserves for it. Default 2048. */
  maxTokens?: number;
  seed?: number;
  signal?: AbortSignal;
  /** The budget the client charges, for the spent/held note of a refused call. */
  budget?: Budget;
  /** Each piece of text as it streams, with its 0-based attempt (the index it gets in `attempts`). */
  onDelta?: (text: string, attempt: number) => void;
  /** Each finished attempt, as it finishes. */
  onAttempt?: (attempt: ProviderAttempt, index: number) => void;
  /** Milliseconds clock for latencies of failed calls. */
  now?: () => number;
}

export interface ProviderDesignResult {
  design: Design | null;
  designer: ReturnType<typeof providerDesigner>;
  /** The problems of the attempt shown (the used one, else the last). */
  errors: string[];
  /** Why there is no design; absent when there is one. */
  failure?: string;
}

export const DEFAULT_DESIGN_MAX_TOKENS = 2048;

const promptText = (messages: readonly ChatMessage[]): string =>
  messages.map((m) => `<|${m.role}|>\n${m.content}`).join('\n');

export async function designWithProvider(o: ProviderDesignOptions): Promise<ProviderDesignResult> {
  const now = o.now ?? (() => Date.now());
  const turns = Math.max(0, Math.min(MAX_REPAIR_TURNS, Math.floor(o.repairTurns ?? DEFAULT_REPAIR_TURNS)));
  const temperature = o.temperature ?? 0;
  const asked = o.dom === 'low' ? 'low' : 'high';
  let output: DesignOutput = resolveDesignOutput(o.output ?? 'xml', o.presetId);
  let outputFallback: string | undefined;
  // The prompt has no tool messages; one would be sent as a user message. Asked for JSON, the
  // system message gains the note that names the JSON channels.
  const firstMessages = (out: DesignOutput): ChatMessage[] =>
    o.messages(o.query, asked).map((m) => ({
      role: m.role === 'tool' ? 'user' : m.role,
      content:
        out === 'json-schema' && m.role === 'system' ? `${m.content}\n\n${SCHEMA_OUTPUT_NOTE}` : m.content,
    }));
  let first = firstMessages(output);
  let conversation: ChatMessage[] = [...first];
  const attempts: ProviderAttempt[] = [];
  let design: Design | null = null;
  let usedAttempt: number | null = null;
  let failure: string | undefined;
  let interrupted = false;

  for (let i = 0; i <= turns; i++) {
    if (o.signal?.aborted) {
      interrupted = true;
      failure = 'interrupted before the design was finished';
      break;
    }
    const started = now();
    const reply = await o.client.stream(
      {
        model: o.model,
        messages: conversation,
        temperature,
        maxTokens: o.maxTokens ?? DEFAULT_DESIGN_MAX_TOKENS,
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        ...(output === 'json-schema' ? { extraBody: { response_format: designResponseFormat() } } : {}),
      },
      {
        ...(o.signal ? { signal: o.signal } : {}),
        onDelta: (t) => o.onDelta?.(t, attempts.length),
      },
    );
    if (!reply.ok) {
      const e = reply.error;
      const partial = e.partial?.content ?? '';
      let error = describeLlmError(e);
      if (e.kind === 'budget' && o.budget) error = `${error} Budget: ${budgetState(o.budget)}.`;
      // A refused call spent nothing; a failed one is recorded with what it streamed (estimated).
      const attempt: ProviderAttempt = {
        rawOutput: clipOutput(partial),
        problems: [],
        valid: false,
        promptTokens: 0,
        completionTokens: e.partial?.completionTokensEstimate ?? 0,
        latencyMs: Math.max(0, now() - started),
        error,
      };
      if (e.kind !== 'budget') {
        attempts.push(attempt);
        o.onAttempt?.(attempt, attempts.length - 1);
      }
      if (output === 'json-schema' && outputFallback === undefined && refusedSchema(e)) {
        // The same turn again, asked for XML; the refused call stays in the attempts.
        outputFallback = `the server refused response_format with the design's JSON schema (${error}); the design was asked for as XML`;
        output = 'xml';
        first = firstMessages(output);
        conversation = [...first];
        i -= 1;
        continue;
      }
      interrupted = e.kind === 'aborted';
      failure =
        e.kind === 'aborted'
          ? `interrupted during attempt ${i + 1}; what it wrote is kept`
          : e.kind === 'budget'
            ? `attempt ${i + 1} was not sent: ${error}`
            : `attempt ${i + 1} failed: ${error}`;
      break;
    }
    const c = reply.value;
    const read = readProviderReply(c.content, o.dom, output);
    const attempt: ProviderAttempt = {
      rawOutput: clipOutput(c.content),
      problems: read.problems,
      valid: read.design !== null,
      promptTokens: c.usage.promptTokens,
      completionTokens: c.usage.completionTokens,
      ...(c.costUsd !== undefined ? { costUsd: c.costUsd } : {}),
      latencyMs: c.latencyMs,
      ...(c.finishReason ? { finishReason: c.finishReason.slice(0, 200) } : {}),
    };
    attempts.push(attempt);
    o.onAttempt?.(attempt, attempts.length - 1);
    if (read.design) {
      design = read.design;
      usedAttempt = attempts.length - 1;
      break;
    }
    if (i === turns) {
      failure = `no valid design after ${attempts.length} attempt${attempts.length === 1 ? '' : 's'} (${turns} repair turn${turns === 1 ? '' : 's'})`;
      break;
    }
    conversation.push(...repairMessages(c.content, read.problems));
  }

  const designer = providerDesigner({
    model: o.model,
    provider: o.provider,
    prompt: promptText(first),
    dom: o.dom,
    temperature,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    repairTurns: turns,
    attempts,
    usedAttempt,
    ...(failure !== undefined ? { failure } : {}),
    interrupted,
    output,
    ...(outputFallback !== undefined ? { outputFallback } : {}),
  });
  return {
    design,
    designer,
    errors: designer.parseErrors,
    ...(failure !== undefined ? { failure } : {}),
  };
}
