/**
 * The seams of the executor: what an agent sees (`AgentContext`), and what turns one chat call
 * into text (`ChatBackend`). Agents never talk to a provider directly; the executor wraps every
 * call so it is budgeted, cancellable and recorded as an `llm.call` event.
 */
import type { Agent, ChatMessage, ExecutionBackend } from '../core/trace.ts';

/**
 * What a call is for within its agent. Remote models ignore it; the simulator uses it to decide
 * how a programmatic sub-agent behaves (a critic reviews, a reviser re-checks, a CEO answers JSON).
 */
export type CallKind = 'solve' | 'debate' | 'critic' | 'revise' | 'decide' | 'extract' | 'ceo' | 'recruit';

/** One chat call as the backend receives it. */
export interface ChatCall {
  agent: Agent;
  /** What this call is within the agent, e.g. "sample 3/5"; copied to the `llm.call` event. */
  label: string;
  kind: CallKind;
  /** The agent's input (see `AgentContext.input`); every call's first user message starts with it. */
  input: string;
  messages: ChatMessage[];
  /** 0-based index of the call within its agent, in the order the agent issued them. */
  callIndex: number;
  temperature?: number;
  /** Cap on completion tokens for this call. */
  maxTokens?: number;
  /** Model override from the agent's params. */
  model?: string;
  signal: AbortSignal;
  /**
   * Streaming: called with each piece of output text as it arrives, when the caller wants to show
   * the call live. Backends that cannot stream may ignore it.
   */
  onDelta?: (delta: string) => void;
}

/** What one call produced. Failures carry a coded kind so the executor can name the reason. */
export type ChatReply =
  | {
      ok: true;
      output: string;
      model: string;
      promptTokens: number;
      completionTokens: number;
      /** True when the provider reported no usage and the counts are estimates. */
      tokensEstimated: boolean;
      /** USD; 0 when the model has no price (the simulator is free). */
      costUsd: number;
    }
  | {
      ok: false;
      /** `budget`, `aborted`, `http`, `timeout`, `network`, `invalid-response`, or `exception`. */
      kind: string;
      message: string;
      model: string;
      /** Tokens the failed call may still be billed for (e.g. a broken stream). */
      promptTokens: number;
      completionTokens: number;
    };

export interface ChatBackend {
  /** Recorded as `execution.backend`; never holds a key. */
  readonly info: ExecutionBackend;
  /** Tags the run's trace gets (the simulator adds `simulated`). */
  readonly tags: readonly string[];
  /** Put before every call's label in the trace (the simulator's `simulated · `). */
  readonly labelPrefix?: string;
  /** The model a call will use, for budget reservations. */
  modelFor(call: Pick<ChatCall, 'model'>): string;
  /**
   * USD for a usage on `model`, or undefined when the price is unknown (refused under a cost
   * limit: unknown is not free).
   */
  costOf(model: string, promptTokens: number, completionTokens: number): number | undefined;
  /** Never throws for a failed call; resolves to a reply with `ok: false`. */
  chat(call: ChatCall): Promise<ChatReply>;
}

export interface ChatOptions {
  kind?: CallKind;
  temperature?: number;
  maxTokens?: number;
}

/** Everything an agent of the archive gets. */
export interface AgentContext {
  agent: Agent;
  /**
   * The text the agent works on: the original question when its input is empty, else its input
   * with every `${ID}` replaced and the original task carried along (see `input.ts`).
   */
  input: string;
  /** The original question of the run. */
  task: string;
  /**
   * One LLM call: records a complete `llm.call` event (also for failures), enforces the per-agent
   * and run budgets, and resolves to the output text. Throws {@link AgentCallError} on failure.
   */
  chat(label: string, messages: ChatMessage[], options?: ChatOptions): Promise<string>;
  /** Records an `agent.note` (a vote, a verdict, a CEO decision). */
  note(kind: string, text: string): void;
  signal: AbortSignal;
}

/** An agent of the archive: its whole behaviour, returning its output text. */
export type AgentRunner = (ctx: AgentContext) => Promise<string>;

/** A failed call, as agents see it. `kind` is the reply's failure kind (e.g. `budget`). */
export class AgentCallError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentCallError';
  }
}
