import { z } from 'zod';
import { AgentTypeSchema } from './agents.ts';

/**
 * `baton.trace/1` — the one artefact every part of Baton reads or writes. The spec, field by field,
 * is docs/trace-format.md; keep the two in step. Times are milliseconds; money is US dollars.
 */
export const TRACE_FORMAT = 'baton.trace/1';
export const TRACE_VERSION = 1;

/** Upper bounds that keep an untrusted trace from exhausting memory or the renderer. */
export const TRACE_LIMITS = {
  text: 2_000_000,
  agents: 5_000,
  edges: 50_000,
  events: 200_000,
  steps: 5_000,
  messages: 500,
} as const;

/** The only diagrams a trace holds: base64 PNG, JPEG or WebP data URLs, at most 8 M characters. */
export const DIAGRAM_DATA_URL = /^data:image\/(?:png|jpeg|webp);base64,[A-Za-z0-9+/=]+$/;
export const MAX_DIAGRAM_CHARS = 8_000_000;
/** Importer notes kept on one trace; the rest are counted in the last one. */
export const MAX_IMPORT_NOTES = 200;

const text = z.string().max(TRACE_LIMITS.text);
const shortText = z.string().max(10_000);
const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'ids use letters, digits, _ . : - only');
const nonNeg = z.number().finite().nonnegative();

// ---------------------------------------------------------------- task

export const MasBenchAxisSchema = z.enum(['depth', 'horizon', 'breadth', 'parallel', 'robustness']);

export const TaskSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('custom') }),
  z.object({
    kind: z.literal('masbench'),
    axis: MasBenchAxisSchema,
    value: z.number().int().min(1).max(64),
    taskId: shortText.optional(),
  }),
  z.object({ kind: z.literal('dataset'), name: shortText, item: shortText.optional() }),
  z.object({ kind: z.literal('imported'), tool: shortText, ref: shortText.optional() }),
]);

export const TaskSchema = z.object({
  query: text,
  /** Expected final answer; null when unknown. Multi-answer tasks list answers in `groundTruths`. */
  groundTruth: text.nullable(),
  groundTruths: z.array(shortText).max(64).optional(),
  source: TaskSourceSchema,
  seed: z.number().int().optional(),
});

// ---------------------------------------------------------------- designer

/**
 * How a design the source did not record was read back from the orchestrator's own text (a
 * MAS-Orchestra slide that publishes only a diagram): which drafted agent blocks, where the edges
 * came from, and every change made to them. Such a design was never executed as shown here.
 */
export const DesignRecoverySchema = z.object({
  from: z.literal('orchestrator-thinking'),
  /** What was read: the last complete set of `<agent_id>`… blocks the orchestrator drafted. */
  method: z.literal('agent-blocks'),
  /** Which set of drafted agent blocks (1-based) out of how many the text holds. */
  draft: z.number().int().min(1),
  drafts: z.number().int().min(1),
  agents: z.number().int().nonnegative(),
  edges: z.number().int().nonnegative(),
  /** Where the edges came from: the drafted `<edge>` block, the `${…}` references, or both. */
  edgesFrom: z.enum(['edge-block', 'references', 'edge-block+references', 'none']),
  /** Every change made to the drafted blocks to make a valid design, in words. */
  repairs: z.array(shortText).max(32).default([]),
  /** Always false: the design is what the orchestrator wrote, not a record of what ran. */
  executed: z.literal(false),
});

/** Where the source page and the code it published say different things (e.g. the sub-agent model). */
export const SourceDisagreementSchema = z.object({
  /** The trace field the two sources disagree on, e.g. `subAgentModel`. */
  field: shortText,
  page: shortText,
  code: shortText,
  /**
   * Whose code: this item's own (absent), or, for an item that publishes none, the other items of
   * the same page, which all agree with each other.
   */
  codeOf: z.enum(['this-item', 'other-items']).optional(),
});

/** Something an importer noticed about its source: a value it left out, changed or doubts. */
export const ImportNoteSchema = z.object({
  code: shortText,
  message: shortText,
  path: shortText.optional(),
});

/** One call of a provider orchestrator's design loop: what it wrote, what was wrong, what it cost. */
export const ProviderAttemptSchema = z.object({
  rawOutput: text,
  /** The validator's problems, one per line (empty for a valid design or a failed call). */
  problems: z.array(shortText).max(1000),
  valid: z.boolean(),
  promptTokens: nonNeg,
  completionTokens: nonNeg,
  /** USD from the price table; absent when the model has no price. */
  costUsd: nonNeg.optional(),
  latencyMs: nonNeg,
  /** The provider's finish reason (`stop`, `length`, …). */
  finishReason: shortText.optional(),
  /** Why the call failed (kind: message), when it did. */
  error: shortText.optional(),
});

export const DesignerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('manual') }),
  z.object({
    kind: z.literal('policy'),
    checkpoint: shortText,
    backend: z.enum(['cpu', 'wasm', 'webgpu']).optional(),
    seed: z.number().int().optional(),
    /** Version of the role pool the policy chose from (`baton.roles/1`, or a user-edited pool's). */
    roles: shortText.optional(),
    /** The action-wise reward constants the steps' `actionReward`s were computed with. */
    rewards: z.record(z.string().max(40), z.number().finite()).optional(),
  }),
  z.object({
    kind: z.literal('orchestrator'),
    model: shortText,
    prompt: text.optional(),
    rawOutput: text.optional(),
    parseErrors: z.array(shortText).max(1000).default([]),
    /** The weights' data type (`q4`, `q8`, `fp32`, …) and where they ran. */
    dtype: shortText.optional(),
    device: z.enum(['webgpu', 'wasm', 'cpu']).optional(),
    /** Why that device (chosen automatically, or asked for). */
    deviceReason: shortText.optional(),
    /** The Degree of MAS asked for; `auto` lets the model choose (the design's `dom` says what it chose). */
    dom: z.enum(['low', 'high', 'auto']).optional(),
    /** Whether constrained decoding held the output to the design grammar. */
    constrained: z.boolean().optional(),
    seed: z.number().int().optional(),
    temperature: z.number().min(0).max(4).optional(),
    /** Whether the raw output parsed and passed every design rule. */
    valid: z.boolean().optional(),
    /**
     * Which branch the design took (MAS-Orchestra): `direct` answered with no agent (low DoM),
     * `delegate` handed the query to one agent (low DoM), `mas` wrote a multi-agent design (high
     * DoM). Absent in traces written before it was recorded, and when there is no valid design.
     */
    branch: z.enum(['direct', 'delegate', 'mas']).optional(),
    /** Why generation stopped. */
    stopReason: z.enum(['eos', 'max-tokens', 'interrupted']).optional(),
    /** Constrained decoding's counts (`maskedSteps`, `forcedTokens`, …), by name. */
    constraint: z.record(z.string().max(80), z.number().finite()).optional(),
    /** Milliseconds and rates of this design: load, first token, the whole generation. */
    timings: z
      .object({
        loadMs: nonNeg.optional(),
        firstTokenMs: nonNeg.optional(),
        generateMs: nonNeg,
        tokens: nonNeg,
        tokensPerSecond: nonNeg,
      })
      .optional(),
    /** A provider wrote the design: the preset or host it was sent to (never a key). */
    provider: shortText.optional(),
    /** What the provider was asked to write: MAS-Orchestra XML, or the design's JSON schema. */
    output: z.enum(['xml', 'json-schema']).optional(),
    /** Set when the JSON schema was asked for and the server refused `response_format`: XML was used instead. */
    outputFallback: shortText.optional(),
    /** Repair turns allowed after the first attempt (an invalid design goes back with its problems). */
    repairTurns: z.number().int().min(0).max(20).optional(),
    /** Every call of the design and repair loop, in order. */
    attempts: z.array(ProviderAttemptSchema).max(32).optional(),
    /** The 0-based index of the attempt whose design was used; null when none was valid. */
    usedAttempt: z.number().int().min(0).max(31).nullable().optional(),
    /** Why no design was used (no valid attempt, a refused or failed call, an interrupt). */
    failure: shortText.optional(),
    /** The orchestrator's own calls, summed over the attempts (not in `totals`, which count the run). */
    usage: z
      .object({ promptTokens: nonNeg, completionTokens: nonNeg, costUsd: nonNeg.optional(), calls: nonNeg })
      .optional(),
  }),
  z.object({
    kind: z.literal('imported'),
    tool: shortText,
    /** The model that wrote the design in the source tool (e.g. an orchestrator checkpoint name). */
    orchestrator: shortText.optional(),
    subAgentModel: shortText.optional(),
    /** Training step of the orchestrator checkpoint, when the source says it. */
    trainingStep: z.number().int().nonnegative().optional(),
    dom: z.enum(['low', 'high', 'high_extensive']).optional(),
    /** Set when the design was recovered from the orchestrator's text rather than recorded. */
    designRecovery: DesignRecoverySchema.optional(),
    /** Where the page's claims and its published code disagree. */
    disagreements: z.array(SourceDisagreementSchema).max(16).optional(),
  }),
]);

// ---------------------------------------------------------------- design

export const AgentParamsSchema = z
  .object({
    /** DebateAgent: the roles that argue (≥ 2). */
    debateRoles: z.array(shortText).max(16).optional(),
    /** SCAgent: number of samples (default 5). */
    samples: z.number().int().min(1).max(64).optional(),
    /** ReflexionAgent / DebateAgent / CEOAgent: maximum rounds (defaults 5 / 2 / 4). */
    maxRounds: z.number().int().min(1).max(32).optional(),
    temperature: z.number().min(0).max(4).optional(),
    /** Per-agent cap on completion tokens for one call. */
    maxTokens: z.number().int().positive().max(1_000_000).optional(),
    model: shortText.optional(),
  })
  .catchall(
    z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(64)]),
  );

export const AgentSchema = z.object({
  id,
  type: AgentTypeSchema,
  description: text,
  /** Empty = the original question. `${ID}` is replaced by agent ID's output (and requires ID→this edge). */
  input: text,
  /** MasHost role name when the agent was added by a construction policy. */
  role: shortText.optional(),
  params: AgentParamsSchema.default({}),
});

export const EdgeSchema = z.object({ from: id, to: id });

export const DesignSchema = z.object({
  /** Degree of MAS: low = at most one agent and no edges; high = any valid DAG. */
  dom: z.enum(['low', 'high']),
  /** The designer's reasoning (MAS-Orchestra `<thinking>`). */
  thinking: text.optional(),
  agents: z.array(AgentSchema).max(TRACE_LIMITS.agents),
  edges: z.array(EdgeSchema).max(TRACE_LIMITS.edges),
  /** When the designer answered directly instead of delegating (no agents). */
  directAnswer: text.optional(),
});

// ---------------------------------------------------------------- construction (MasHost)

export const ConstructionActionSchema = z.discriminatedUnion('kind', [
  /** ADD: a new agent with `role`; `links` are the existing agents whose outputs feed it. */
  z.object({
    kind: z.literal('add'),
    role: shortText,
    agentId: id,
    agentType: AgentTypeSchema,
    links: z.array(id).max(TRACE_LIMITS.agents),
  }),
  /** DELETE: removes the most recently changed agent and its edges. */
  z.object({ kind: z.literal('delete'), agentId: id }),
  /** EXIT: hands every intermediate answer to the final summariser (`summarizerId`). */
  z.object({ kind: z.literal('exit'), summarizerId: id.optional() }),
]);

export const ConstructionStepSchema = z.object({
  index: z.number().int().nonnegative(),
  action: ConstructionActionSchema,
  /** π_node over roles ∪ {DELETE, EXIT}; probabilities sum to 1, masked actions are 0. */
  roleDistribution: z.array(z.object({ action: shortText, p: z.number().min(0).max(1) })).max(256),
  /** π_edge: sigmoid probability of a link from each existing agent to the new one. */
  edgeProbabilities: z.array(z.object({ from: id, p: z.number().min(0).max(1) })).max(TRACE_LIMITS.agents),
  /** log π_node(choice) + Σ log Bernoulli(edge choice); natural log. */
  logProb: z.number().max(0).nullable(),
  chooser: z.enum(['policy', 'user']),
  intermediateAnswer: text.nullable().optional(),
  intermediateCorrect: z.boolean().nullable().optional(),
  /** Where the intermediate answer came from and what it cost (cached calls are free). */
  intermediateRun: z
    .object({
      backend: z.enum(['simulated', 'remote']),
      status: z.enum(['completed', 'failed', 'cancelled', 'skipped']),
      calls: nonNeg,
      cachedCalls: nonNeg,
      promptTokens: nonNeg,
      completionTokens: nonNeg,
      costUsd: nonNeg,
      /** Why the run failed or was skipped. */
      problem: shortText.optional(),
    })
    .optional(),
  /** Action-wise reward r_t (DESIGN.md "Rewards"), when the ground truth is known. */
  actionReward: z.number().finite().nullable().optional(),
});

// ---------------------------------------------------------------- execution

export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: text,
});

/** `t` is milliseconds since the execution started (`execution.startedAt`). */
const at = { t: nonNeg };

export const TraceEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('agent.start'), ...at, agentId: id, input: text }),
  z.object({
    type: z.literal('llm.call'),
    ...at,
    agentId: id,
    callId: shortText,
    /** What this call is within the agent, e.g. "sample 3/5", "critic round 2", "CEO turn 1". */
    label: shortText.optional(),
    model: shortText,
    messages: z.array(ChatMessageSchema).max(TRACE_LIMITS.messages),
    output: text,
    promptTokens: nonNeg,
    completionTokens: nonNeg,
    /** True when the provider gave no usage and the counts are estimates. */
    tokensEstimated: z.boolean().optional(),
    latencyMs: nonNeg,
    costUsd: nonNeg,
    error: shortText.optional(),
  }),
  /** Something an agent decided that is not an LLM call: a vote, a CEO decision, a critic verdict. */
  z.object({
    type: z.literal('agent.note'),
    ...at,
    agentId: id,
    kind: shortText,
    text,
  }),
  z.object({ type: z.literal('agent.end'), ...at, agentId: id, output: text }),
  /** A failed agent; dependents receive `placeholder` instead of an output. */
  z.object({ type: z.literal('agent.error'), ...at, agentId: id, error: text, placeholder: text }),
  z.object({ type: z.literal('run.end'), ...at, status: z.enum(['completed', 'failed', 'cancelled']) }),
]);

export const ExecutionBackendSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  /** Programmatic sub-agents: always shown as a simulation. */
  z.object({ kind: z.literal('simulated'), seed: z.number().int(), model: shortText.optional() }),
  z.object({ kind: z.literal('remote'), provider: shortText, baseUrl: shortText, model: shortText }),
  /** The run happened in another tool; only what it published is here. */
  z.object({ kind: z.literal('imported'), tool: shortText, model: shortText.optional() }),
]);

export const ExecutionSchema = z.object({
  backend: ExecutionBackendSchema,
  status: z.enum(['not-run', 'running', 'completed', 'failed', 'cancelled']),
  startedAt: z.iso.datetime().optional(),
  events: z.array(TraceEventSchema).max(TRACE_LIMITS.events),
});

export const ResultSchema = z.object({
  finalAnswer: text.nullable(),
  /** The agent whose output is the final answer (the sink), when there is one. */
  answerAgent: id.optional(),
  /** null when there is no ground truth or the run did not finish. */
  correct: z.boolean().nullable(),
});

export const TotalsSchema = z.object({
  promptTokens: nonNeg,
  completionTokens: nonNeg,
  costUsd: nonNeg,
  llmCalls: nonNeg,
  /** From the first event to the last, in ms. */
  wallMs: nonNeg,
  /** Longest path through the DAG, each agent weighted by its own start→end time, in ms. */
  criticalPathMs: nonNeg,
});

export const TraceSchema = z.object({
  format: z.literal(TRACE_FORMAT),
  id,
  title: shortText,
  createdAt: z.iso.datetime(),
  /**
   * false when the source gave no date (imported case pages have none): `createdAt` then holds
   * the epoch as a placeholder and is shown as unknown. Absent means the date is known.
   */
  createdAtKnown: z.boolean().optional(),
  task: TaskSchema,
  designer: DesignerSchema,
  construction: z.array(ConstructionStepSchema).max(TRACE_LIMITS.steps),
  design: DesignSchema,
  execution: ExecutionSchema,
  result: ResultSchema,
  totals: TotalsSchema,
  /** A rendered diagram from the source tool; only base64 PNG, JPEG or WebP data URLs are kept. */
  diagram: z
    .string()
    .max(MAX_DIAGRAM_CHARS)
    .regex(DIAGRAM_DATA_URL, 'only data:image/png, image/jpeg or image/webp;base64 URLs')
    .optional(),
  /** What the importer noticed about the source (values left out, changed or in doubt), in its words. */
  importNotes: z.array(ImportNoteSchema).max(MAX_IMPORT_NOTES).optional(),
  /** Set when long outputs were shortened to fit a share link; counts what was cut. */
  trimmed: z.object({ fields: nonNeg, charsRemoved: nonNeg }).optional(),
  tags: z.array(shortText).max(32).default([]),
});

export type Task = z.infer<typeof TaskSchema>;
export type TaskSource = z.infer<typeof TaskSourceSchema>;
export type Designer = z.infer<typeof DesignerSchema>;
export type ProviderAttempt = z.infer<typeof ProviderAttemptSchema>;
export type Agent = z.infer<typeof AgentSchema>;
export type AgentParams = z.infer<typeof AgentParamsSchema>;
export type Edge = z.infer<typeof EdgeSchema>;
export type Design = z.infer<typeof DesignSchema>;
export type ConstructionAction = z.infer<typeof ConstructionActionSchema>;
export type ConstructionStep = z.infer<typeof ConstructionStepSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type TraceEvent = z.infer<typeof TraceEventSchema>;
export type ExecutionBackend = z.infer<typeof ExecutionBackendSchema>;
export type Execution = z.infer<typeof ExecutionSchema>;
export type TraceResult = z.infer<typeof ResultSchema>;
export type Totals = z.infer<typeof TotalsSchema>;
export type Trace = z.infer<typeof TraceSchema>;
export type DesignRecovery = z.infer<typeof DesignRecoverySchema>;
export type SourceDisagreement = z.infer<typeof SourceDisagreementSchema>;
export type ImportNote = z.infer<typeof ImportNoteSchema>;
/** What a caller writes before defaults are applied (e.g. `params` may be omitted). */
export type TraceInput = z.input<typeof TraceSchema>;
