/**
 * Many constructions at once: the trainer samples B tasks × G constructions per iteration, and one
 * forward pass per episode and step keeps the compute core busy with batches of one. Here every
 * construction step runs one batched pass of the node head over all still-running episodes, then one
 * batched pass of the edge head over the episodes that chose an ADD (each with its own role), so
 * the core sees batches of up to B·G states.
 *
 * The semantics are the episode code's, not a copy of it: each episode is an `Episode`
 * (episode.ts) driven by `takeStep` / `recordResult` / `runFrame` / `episodeTrace`, and each step
 * is `decideNode` + `finishStep` (sample.ts) on the same draws from `stepRng(seed, t)`
 * (`seededStepDraws`). Rows of the policy graph do not mix (each output row reads only its own
 * state's rows), so on the CPU backend a batched pass gives the one-state pass's numbers bit for
 * bit, and `constructMany` gives the traces `construct` gives (tested in batch-sample.test.ts).
 *
 * Graphs are compiled for batch sizes 1, 2, 4, … up to the largest batch, on first use, and a pass
 * uses the smallest that fits, so late steps with few episodes left do not pay for the full batch.
 *
 * Streams: `constructMany` can split the episodes into `streams` groups that step independently,
 * each with its own compiled graphs. An episode's next state depends only on its own results, so
 * while the device runs one stream's pass and its read-back is awaited, the host decides another
 * stream's actions and runs its sub-agents (on WebGPU the pass and the simulated sub-agents then
 * overlap instead of taking turns). Each episode's draws come from its own seed and state, so the
 * streams change no episode where a row's numbers do not depend on the batch it is in (the CPU
 * backends; batch-sample.test.ts). On WebGPU a smaller batch can pick other product kernels, whose
 * summation order can move the last bits of a probability.
 *
 * In `fused` edge mode (the default on WebGPU, as for `PolicyNetwork`) the node pass also computes
 * every state's edge logits under every role, so a construction step is one pass and one read-back
 * instead of two: on a GPU a pass of a few dozen states costs its round trip more than its
 * arithmetic. An edge row reads only its own agent, state and role, so the chosen role's logits are
 * those of the two-pass edge pass, bit for bit (batch-sample.test.ts).
 */
import type { ConstructionStep, Task } from '../core/trace.ts';
import { compile, readStep, type BackendChoice, type Model } from '../gpu/index.ts';
import {
  fieldsOf,
  graphBlock,
  incompatibility,
  lazyParams,
  migrateCheckpoint,
  type PolicyCheckpoint,
} from './checkpoint.ts';
import { actionMask, type ConstructionState } from './construction.ts';
import { agentDim, encodeTask, type TaskEncoding } from './encoder.ts';
import {
  currentFrame,
  currentState,
  episodeDone,
  episodeTrace,
  recordResult,
  runFrame,
  startEpisode,
  takeStep,
  type Construction,
  type Episode,
} from './episode.ts';
import {
  buildPolicyGraph,
  encoderConfig,
  jpssInputs,
  policyCompileOptions,
  type EdgeMode,
  type Evaluation,
  type PolicyGraph,
} from './network.ts';
import { PackedStates } from './pack.ts';
import type { ActionRewardConfig } from './rewards.ts';
import type { RolePool } from './roles.ts';
import { decideNode, finishStep, seededStepDraws } from './sample.ts';
import type { IntermediateRunner } from './step-types.ts';
import type { EncoderConfig } from './encoder.ts';

/** The most streams a batched policy takes. */
export const MAX_STREAMS = 8;

interface Compiled {
  size: number;
  model: Model;
  pg: PolicyGraph;
  /** The states of the last pass, packed (pack.ts), and the items they came from. */
  packed: PackedStates;
  items: readonly BatchItem[];
  /** The arena load (`BatchedPolicy.load`) whose parameters the model holds. */
  loaded: number;
}

/** One state of a batched pass. */
export interface BatchItem {
  task: TaskEncoding;
  state: ConstructionState;
}

/** What a node pass gives for one state: its action mask, π_node, and in `fused` mode its edge logits per role. */
export interface NodeHead {
  mask: Float32Array;
  probs: Float32Array;
  /** `fused` mode: the edge logits of role r over the state's agents (state order). */
  roleEdges?: (role: number) => Float32Array;
}

/**
 * A policy compiled for batched passes: `two-pass` (node pass, then edges for one role per state)
 * or `fused` (the node pass gives the edges under every role).
 */
export class BatchedPolicy {
  readonly enc: EncoderConfig;
  /** Per stream, the graph compiled for each batch size used. */
  private readonly sizes: Map<number, Compiled>[];
  /** The parameter arena loaded with `load` (replaces the checkpoint's parameters), else null. */
  private arena: Float32Array | null = null;

  private constructor(
    private current: PolicyCheckpoint,
    private readonly choice: BackendChoice,
    /** Largest batch a pass takes. */
    readonly maxBatch: number,
    /** False: the "w/o JPSS" ablation (`PolicyGraphOptions.jpss`). */
    readonly jpss: boolean,
    readonly edgeMode: EdgeMode,
    /** Groups of episodes `constructMany` steps independently (each with its own graphs). */
    readonly streams: number,
  ) {
    this.enc = encoderConfig(current.config);
    this.sizes = Array.from({ length: streams }, () => new Map<number, Compiled>());
  }

  /** Nothing compiles until the first pass (then one graph per batch size used). */
  static create(
    original: PolicyCheckpoint,
    choice: BackendChoice,
    o: { maxBatch: number; jpss?: boolean; edgeMode?: EdgeMode; streams?: number },
  ): BatchedPolicy {
    if (!Number.isInteger(o.maxBatch) || o.maxBatch < 1)
      throw new Error('maxBatch must be a positive integer');
    const streams = o.streams ?? 1;
    if (!Number.isInteger(streams) || streams < 1 || streams > MAX_STREAMS)
      throw new Error(`streams must be an integer from 1 to ${MAX_STREAMS}`);
    return new BatchedPolicy(
      migrateCheckpoint(original),
      choice,
      o.maxBatch,
      (o.jpss ?? original.meta?.jpss) !== false,
      o.edgeMode ?? (choice.backend === 'webgpu' ? 'fused' : 'two-pass'),
      streams,
    );
  }

  /** The policy it samples from (after `load`: the loaded one's name; parameters from the arena). */
  get checkpoint(): PolicyCheckpoint {
    return this.current;
  }

  get name(): string {
    return this.current.name;
  }

  /**
   * Switches to other parameters of the same network without compiling again: `arena` is the
   * compute core's parameter arena of a graph built by `buildPolicyGraph` with this config (the
   * trainer's learner: same parameters in the same order, so the same layout), `checkpoint` names
   * them. A trainer keeps one sampler for all its iterations this way. `arena` is kept as it is,
   * so it must not change afterwards.
   */
  load(checkpoint: PolicyCheckpoint, arena: Float32Array): void {
    // The checkpoint's parameters are only carried along (passes read the arena): not read here,
    // so a trainer's per-iteration checkpoint (`lazyParams`) is never turned into arrays for it.
    this.current = lazyParams({ ...fieldsOf(this.current), name: checkpoint.name }, () => checkpoint.params);
    // Kept, not copied: an arena is not changed once read (the learner reads a fresh one after
    // every update), and each graph copies it into its own parameters when it next runs a pass.
    this.arena = arena;
    // Each compiled graph takes the arena when it next runs a pass (`compiled`): an iteration's
    // last steps run few episodes, so some batch sizes go unused between two loads.
    this.loads++;
  }

  /** The parameter arena last loaded (`load`), or null: the checkpoint's own parameters. */
  get parameters(): Float32Array | null {
    return this.arena;
  }

  /** Arenas loaded so far; a compiled graph holds the parameters of load `Compiled.loaded`. */
  private loads = 0;

  private importArena(model: Model): void {
    // Parameters only: sampling graphs have no optimizer.
    if (this.arena) model.importParams(this.arena);
  }

  get backend(): 'cpu' | 'wasm' | 'webgpu' {
    return this.choice.backend;
  }

  private async compiled(n: number, stream: number): Promise<Compiled> {
    const sizes = this.sizes[stream];
    if (!sizes) throw new Error(`no stream ${stream} (this policy has ${this.streams})`);
    let size = 1;
    while (size < n) size *= 2;
    size = Math.min(size, this.maxBatch);
    if (size < n) throw new Error(`a pass of ${n} states exceeds the batch of ${this.maxBatch}`);
    const have = sizes.get(size);
    if (have) {
      if (have.loaded !== this.loads) {
        this.importArena(have.model);
        have.loaded = this.loads;
      }
      return have;
    }
    const cfg = this.checkpoint.config;
    const E = size * (this.edgeMode === 'fused' ? cfg.roles.length : 1) * cfg.maxAgents;
    const pg = buildPolicyGraph(cfg, this.checkpoint.params, { batch: size, edgeRows: E, jpss: this.jpss });
    const model = await compile(this.choice, pg.graph, policyCompileOptions(cfg));
    this.importArena(model);
    model.setInput('ones', new Float32Array(agentDim(this.enc)).fill(1));
    if (!this.jpss) for (const [k, v] of Object.entries(jpssInputs(cfg, E))) model.setInput(k, v);
    const block = graphBlock(cfg);
    if (block) model.setInput('onesG', new Float32Array(block.hidden).fill(1));
    const packed = new PackedStates(this.enc, size, E, block !== null);
    const c: Compiled = { size, model, pg, packed, items: [], loaded: this.loads };
    sizes.set(size, c);
    return c;
  }

  /**
   * Packs `items` unless they are the states of the last pass in the same order, with edge rows for
   * `roles` (one per item, null: none; 'all': every role for every item), then writes the inputs.
   * The edge pass of a step packs the node pass's items again, so the CPU backend's forward reuse
   * reruns only the edge head.
   */
  private pack(c: Compiled, items: readonly BatchItem[], roles?: readonly (number | null)[] | 'all'): void {
    let same = items.length === c.items.length;
    for (let b = 0; same && b < items.length; b++) {
      const it = items[b] as BatchItem;
      const was = c.items[b] as BatchItem;
      same = it.task === was.task && it.state === was.state;
    }
    if (same) c.packed.clearEdges();
    else {
      c.packed.clear();
      for (const it of items) c.packed.add(it.task, it.state);
      c.items = items.map((it) => ({ task: it.task, state: it.state }));
    }
    if (roles === 'all')
      for (let b = 0; b < items.length; b++) for (let r = 0; r < this.enc.roles; r++) c.packed.addEdges(b, r);
    else if (roles)
      for (let b = 0; b < roles.length; b++) {
        const role = roles[b];
        if (role !== null && role !== undefined) c.packed.addEdges(b, role);
      }
    // The same states as the last pass: the model holds their inputs already; only edges change.
    if (same) c.packed.feedEdges(c.model, { blind: !this.jpss });
    else c.packed.feed(c.model, { blind: !this.jpss });
  }

  /**
   * The node head for every item: its action mask and π_node (exactly 0 where masked); in `fused`
   * mode also its edge logits under every role, from the same pass. `stream` picks the graphs
   * (passes of different streams may be in flight together; those of one stream may not).
   */
  async nodePass(items: readonly BatchItem[], stream = 0): Promise<NodeHead[]> {
    if (items.length === 0) return [];
    const c = await this.compiled(items.length, stream);
    const A = this.enc.roles + 2;
    if (this.edgeMode === 'fused') {
      // Every role's edge rows for every state (rows ρ·n + i of the state's block).
      this.pack(c, items, 'all');
      const [probs, logits] = (await readStep(c.model, [c.pg.probs, c.pg.edgeLogits], { prune: true }))
        .values as [Float32Array, Float32Array];
      const p = c.packed;
      return items.map((it, b) => {
        const first = p.firstEdge[b] as number;
        const n = (p.edgeCount[b] as number) / this.enc.roles;
        return {
          mask: actionMask(it.state),
          probs: probs.slice(b * A, (b + 1) * A),
          roleEdges: (role: number) => logits.slice(first + role * n, first + role * n + n),
        };
      });
    }
    this.pack(c, items);
    // Pruned to the node head (RunOptions.prune): one read-back, no edge head, no log π.
    const [probs] = (await readStep(c.model, [c.pg.probs], { prune: true })).values as [Float32Array];
    return items.map((it, b) => ({
      mask: actionMask(it.state),
      probs: probs.slice(b * A, (b + 1) * A),
    }));
  }

  /**
   * The edge logits of each item's role over its existing agents (state order); an item with role
   * null gets none (pass the node pass's items with null where no ADD was chosen: the states are
   * then not packed again, and only the edge head runs).
   */
  async edgePass(
    items: readonly (BatchItem & { role: number | null })[],
    stream = 0,
  ): Promise<Float32Array[]> {
    const roles = items.map((it) => it.role);
    for (const role of roles)
      if (role !== null && (!Number.isInteger(role) || role < 0 || role >= this.enc.roles))
        throw new Error(`no role with index ${role}`);
    if (roles.every((r) => r === null)) return items.map(() => new Float32Array(0));
    const c = await this.compiled(items.length, stream);
    this.pack(c, items, roles);
    const [logits] = (await readStep(c.model, [c.pg.edgeLogits], { prune: true })).values as [Float32Array];
    const p = c.packed;
    return items.map((it, b) => {
      if (it.role === null) return new Float32Array(0);
      const first = p.firstEdge[b] as number;
      return logits.slice(first, first + (p.edgeCount[b] as number));
    });
  }

  dispose(): void {
    for (const m of this.sizes) {
      for (const c of m.values()) c.model.dispose();
      m.clear();
    }
  }
}

/**
 * A batched step's evaluation (what `finishStep` records with the step): the node head's numbers
 * and the edge logits of the chosen role only.
 */
class BatchedEvaluation implements Evaluation {
  constructor(
    readonly mask: Float32Array,
    readonly probs: Float32Array,
    private readonly role: number | null,
    private readonly chosen: Float32Array | null,
  ) {}

  edges(role: number): Promise<Float32Array> {
    return role === this.role && this.chosen
      ? Promise.resolve(this.chosen)
      : Promise.reject(new Error('a batched step keeps the edges of the chosen role only'));
  }
}

export interface ManyEpisode {
  task: Task;
  seed: number;
  /** Runs each partial MAS for its intermediate answer (and the action rewards). */
  runner?: IntermediateRunner;
}

export interface ConstructManyOptions {
  policy: BatchedPolicy;
  pool: RolePool;
  episodes: readonly ManyEpisode[];
  greedy?: boolean;
  temperature?: number;
  /** Step budget (default the checkpoint's). */
  maxSteps?: number;
  rewards?: ActionRewardConfig;
  createdAt?: string;
}

/**
 * `construct` for many episodes at once: each construction step is one batched node pass over the
 * running episodes and one batched edge pass over those that chose an ADD; the partial MASs of a
 * step are then run (concurrently) and recorded. Returns the constructions in the order given.
 */
export async function constructMany(o: ConstructManyOptions): Promise<Construction[]> {
  const net = o.policy;
  const cfg = net.checkpoint.config;
  const why = incompatibility(
    net.checkpoint,
    o.pool.roles.map((r) => r.name),
  );
  if (why) throw new Error(why);
  if (o.episodes.length > net.maxBatch)
    throw new Error(`${o.episodes.length} episodes exceed the batch of ${net.maxBatch}`);
  const encodings = new Map<string, TaskEncoding>();
  const encode = (t: Task): TaskEncoding => {
    let e = encodings.get(t.query);
    if (!e) {
      e = encodeTask(t.query, cfg.hashDim);
      encodings.set(t.query, e);
    }
    return e;
  };
  const eps: Episode[] = o.episodes.map((e) =>
    startEpisode({
      task: e.task,
      policyName: net.name,
      backend: net.backend,
      seed: e.seed,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      executes: e.runner !== undefined,
      ...(o.rewards ? { rewards: o.rewards } : {}),
      ...(o.createdAt !== undefined ? { createdAt: o.createdAt } : {}),
      pool: o.pool,
      limits: { maxAgents: cfg.maxAgents, maxSteps: o.maxSteps ?? cfg.maxSteps },
    }),
  );
  const tasks = o.episodes.map((e) => encode(e.task));
  const greedy = o.greedy === true;
  // Stream s steps the episodes of one contiguous block on its own graphs (see the file's notes).
  const step = async (members: readonly number[], stream: number): Promise<void> => {
    for (;;) {
      const running = members.filter((k) => !episodeDone(eps[k] as Episode));
      if (running.length === 0) return;
      const items: BatchItem[] = running.map((k) => ({
        task: tasks[k] as TaskEncoding,
        state: currentState(eps[k] as Episode),
      }));
      const heads = await net.nodePass(items, stream);
      // The settings of `stepSettings(ep, greedy)`, as `construct` passes them to `policyStep`.
      const decisions = running.map((k, j) => {
        const ep = eps[k] as Episode;
        const opts = { greedy, temperature: ep.temperature };
        const state = (items[j] as BatchItem).state;
        return { opts, d: decideNode(heads[j] as Evaluation, state, seededStepDraws(ep.seed, state), opts) };
      });
      const edgeItems = items.map((it, j) => {
        const role = (decisions[j] as (typeof decisions)[number]).d.role;
        return {
          task: it.task,
          state: it.state,
          role: role !== null && it.state.agents.length > 0 ? role : null,
        };
      });
      // Fused: the node pass gave every role's edges; else one edge pass for the chosen roles.
      const logits = heads.every((h) => h.roleEdges)
        ? edgeItems.map((it, j) =>
            it.role === null
              ? new Float32Array(0)
              : ((heads[j] as NodeHead).roleEdges?.(it.role) as Float32Array),
          )
        : await net.edgePass(edgeItems, stream);
      for (let j = 0; j < running.length; j++) {
        const k = running[j] as number;
        const { opts, d } = decisions[j] as (typeof decisions)[number];
        const head = heads[j] as NodeHead;
        const chosen =
          (edgeItems[j] as (typeof edgeItems)[number]).role !== null
            ? (logits[j] as Float32Array)
            : d.role !== null
              ? new Float32Array(0)
              : null;
        const ev = new BatchedEvaluation(head.mask, head.probs, d.role, chosen);
        eps[k] = takeStep(eps[k] as Episode, finishStep((items[j] as BatchItem).state, ev, d, chosen, opts));
      }
      await Promise.all(
        running.map(async (k) => {
          const runner = o.episodes[k]?.runner;
          if (!runner) return;
          const ep = eps[k] as Episode;
          const r = await runFrame(ep, ep.cursor, runner);
          eps[k] = recordResult(eps[k] as Episode, ep.cursor, r);
        }),
      );
    }
  };
  await Promise.all(streamBlocks(eps.length, net.streams).map((members, s) => step(members, s)));
  return eps.map((ep) => {
    const trace = episodeTrace(ep);
    const design = currentFrame(ep).design;
    if (!design) throw new Error('construction ended without agents');
    const steps: ConstructionStep[] = trace.construction;
    return { steps, state: currentState(ep), design, trace, episode: ep };
  });
}

/** Episodes 0 … n − 1 in at most `streams` contiguous blocks of near-equal size, none empty. */
export function streamBlocks(n: number, streams: number): number[][] {
  const k = Math.max(1, Math.min(streams, n));
  return Array.from({ length: k }, (_, s) => {
    const from = Math.floor((s * n) / k);
    const to = Math.floor(((s + 1) * n) / k);
    return Array.from({ length: to - from }, (_, i) => from + i);
  });
}
