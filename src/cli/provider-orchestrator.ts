/**
 * The provider as the orchestrator from the command line (`baton orchestrate --orchestrator
 * provider`, the eval method `orchestrator:provider[:<model>]`): the client, charged to a budget the
 * run shares, and the design loop (src/executor/provider-designer.ts) asked with the hub models'
 * orchestrator prompt (src/interop `orchestratorMessages`).
 */
import {
  DEFAULT_PRICES,
  PROVIDER_PRESETS,
  createLlmClient,
  type Budget,
  type LlmClient,
} from '../executor/llm/index.ts';
import { publicBaseUrl } from '../executor/remote.ts';
import {
  DEFAULT_REPAIR_TURNS,
  DESIGN_OUTPUTS,
  MAX_REPAIR_TURNS,
  type DesignOutputChoice,
} from '../executor/provider-design-read.ts';
import { designWithProvider, type ProviderDesignResult } from '../executor/provider-designer.ts';
import type { Task } from '../core/trace.ts';
import { orchestratorMessages } from '../interop/index.ts';
import { intFlag } from './provider-args.ts';

export const REPAIR_TURNS_USAGE = `  --repair-turns  calls that send an invalid design back with its numbered problems (default ${DEFAULT_REPAIR_TURNS}, 0–${MAX_REPAIR_TURNS})`;

export const DESIGN_OUTPUT_USAGE = `  --design-output  xml (default), json-schema (the design's JSON schema as response_format; a server
                   that refuses it is asked again for XML) or auto (json-schema for the base URL of a
                   preset known to take it: OpenAI, OpenRouter, Ollama, LM Studio, llama.cpp, vLLM)`;

export { DESIGN_OUTPUTS };

/** The preset whose default base URL this is (localhost and 127.0.0.1 alike), if any. */
export function presetOfBaseUrl(baseUrl: string): string | undefined {
  const norm = (u: string): string =>
    u.trim().replace(/\/+$/, '').replace('://127.0.0.1', '://localhost').toLowerCase();
  const url = norm(baseUrl);
  return Object.values(PROVIDER_PRESETS).find((p) => p.baseUrl !== '' && norm(p.baseUrl) === url)?.id;
}

/** `--repair-turns`, or the problem as a sentence. */
export const repairTurnsFlag = (raw: string | boolean | undefined): number | string =>
  intFlag(raw, 'repair-turns', 0, MAX_REPAIR_TURNS, DEFAULT_REPAIR_TURNS);

export interface ProviderOrchestrator {
  client: LlmClient;
  /** Writes one task's design. */
  design: (
    task: Pick<Task, 'query'>,
    o: {
      model?: string;
      dom?: 'low' | 'high' | 'auto';
      seed?: number;
      signal?: AbortSignal;
      onDelta?: (t: string, attempt: number) => void;
    },
  ) => Promise<ProviderDesignResult>;
}

export function providerOrchestrator(o: {
  baseUrl: string;
  apiKey: string;
  model: string;
  budget: Budget;
  repairTurns: number;
  temperature?: number;
  /** What the model is asked to write (default xml). */
  output?: DesignOutputChoice;
}): ProviderOrchestrator {
  const client = createLlmClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    budget: o.budget,
    prices: DEFAULT_PRICES,
  });
  const where = publicBaseUrl(o.baseUrl);
  const presetId = presetOfBaseUrl(o.baseUrl);
  return {
    client,
    design: (task, d) =>
      designWithProvider({
        client,
        model: d.model ?? o.model,
        provider: where,
        query: task.query,
        dom: d.dom ?? 'auto',
        messages: orchestratorMessages,
        repairTurns: o.repairTurns,
        output: o.output ?? 'xml',
        ...(presetId !== undefined ? { presetId } : {}),
        temperature: o.temperature ?? 0,
        budget: o.budget,
        ...(d.seed !== undefined ? { seed: d.seed } : {}),
        ...(d.signal ? { signal: d.signal } : {}),
        ...(d.onDelta ? { onDelta: d.onDelta } : {}),
      }),
  };
}
