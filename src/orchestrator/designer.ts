/**
 * What a generation becomes in a trace: the design its prompt format read from the raw output
 * (`DesignRead`), the designer record (model, dtype, device, prompt, raw output, what broke, the
 * constraint counts, timings) and, when the output is no valid design, the `E_MODEL_OUTPUT` problem
 * that says why. Pure: the same generation always gives the same record.
 */
import { describe } from '../core/errors.ts';
import type { Design, Designer } from '../core/trace.ts';
import type { Device } from './device.ts';
import type { Dtype, PromptFormat } from './manifest.ts';
import type { Generation } from './generate.ts';

export type DomChoice = 'low' | 'high' | 'auto';

export interface DesignerInput {
  model: string;
  dtype: Dtype;
  device: Device;
  deviceReason: string;
  promptFormat: PromptFormat;
  dom: DomChoice;
  constrained: boolean;
  temperature: number;
  seed: number;
  loadMs?: number;
  /** Constrained decoding's counts by name (`maskedSteps`, `forcedTokens`, …). */
  constraint?: Record<string, number>;
}

export interface DesignResult {
  design: Design | null;
  /** One line per parse problem and broken rule (empty when the design is valid). */
  errors: string[];
  designer: Extract<Designer, { kind: 'orchestrator' }>;
  /** `E_MODEL_OUTPUT` when there is no design. */
  problem?: { code: 'E_MODEL_OUTPUT'; message: string };
}

const MAX_ERRORS = 1000;

/** What a prompt format reads from a model's output: the design, or why there is none. */
export interface DesignRead {
  design: Design | null;
  /** One line per parse problem and broken rule. */
  errors: string[];
}

export function designOutcome(g: Generation, read: DesignRead, o: DesignerInput): DesignResult {
  const errors = read.errors.slice(0, MAX_ERRORS).map((l) => l.slice(0, 10_000));
  const design = read.design;
  const designer: DesignResult['designer'] = {
    kind: 'orchestrator',
    model: o.model,
    prompt: g.promptText,
    rawOutput: g.rawOutput,
    parseErrors: errors,
    dtype: o.dtype,
    device: o.device,
    deviceReason: o.deviceReason.slice(0, 10_000),
    dom: o.dom,
    constrained: o.constrained,
    seed: o.seed,
    temperature: o.temperature,
    valid: design !== null,
    ...(design
      ? { branch: design.agents.length === 0 ? 'direct' : design.dom === 'low' ? 'delegate' : 'mas' }
      : {}),
    stopReason: g.stopReason,
    ...(o.constraint ? { constraint: o.constraint } : {}),
    timings: {
      ...(o.loadMs !== undefined ? { loadMs: o.loadMs } : {}),
      firstTokenMs: g.firstTokenMs,
      generateMs: g.generateMs,
      tokens: g.tokens,
      tokensPerSecond: g.tokensPerSecond,
    },
  };
  if (design) return { design, errors, designer };
  const why =
    g.rawOutput.trim() === ''
      ? 'the model wrote nothing'
      : `${errors.slice(0, 3).join('; ')}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`;
  const hint =
    g.stopReason === 'max-tokens'
      ? ' It stopped at the token limit before finishing.'
      : g.stopReason === 'interrupted'
        ? ' It was interrupted.'
        : o.constrained
          ? ''
          : ' Unconstrained output is not held to the design grammar; constrained decoding is.';
  return {
    design: null,
    errors,
    designer,
    problem: {
      code: 'E_MODEL_OUTPUT',
      message: describe('E_MODEL_OUTPUT', `${why.replace(/\.+$/, '')}.${hint}`),
    },
  };
}
