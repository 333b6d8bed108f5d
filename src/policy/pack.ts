/**
 * States packed for the policy graph (`buildPolicyGraph`). A graph has room for B states, B·N agent
 * rows, B·M message slots and E edge rows, while a state has about 2.5 agents and as many links:
 * at fixed offsets (N rows and M slots per state) most of the arithmetic would be on empty slots.
 * Packed, the agents of state b take the rows right after those of state b − 1, its links the
 * slots after theirs, and there are edge rows only for the (state, role) pairs asked for. The
 * graph reaches agents, links and edges only through its index inputs (`msgFrom` / `msgTo`,
 * `agentBatch`, `edgeAgent` / `edgeBatch`), so its formulas do not change; the rows past the packed
 * ones are padding (zero features and weights, indices 0) and `feed` gives the compute core the
 * number of live rows, so the CPU backend computes only those (src/gpu/cpu/model.ts, "Live rows").
 *
 * Each live row's numbers are those of the fixed-offset layout, bit for bit on the CPU: a row reads
 * the same values in the same order, and the empty slots of that layout added only exact zeros
 * (zero weights) to sums. Weight gradients sum over rows in 4-row blocks, so there the grouping of
 * rows, and with it the last bits of rounding, differ from that layout.
 */
import { actionMask, type ConstructionState } from './construction.ts';
import {
  agentDim,
  encodeAgentRows,
  encodeState,
  stateDim,
  type EncoderConfig,
  type TaskEncoding,
} from './encoder.ts';
import { maxLinks, stateLinks } from './links.ts';
import { summarize, writeAgentRows, writeLinks, writeMask, writeState } from './state-rows.ts';

/** What `feed` writes to: a compiled policy graph (`Model.setInput`). */
export interface InputSink {
  setInput(name: string, data: Float32Array | Uint32Array, rows?: number): void;
}

export interface FeedOptions {
  /** The graph was built with `logProb`: also `action`, `edgeTarget`, `edgeWeight`. */
  targets?: boolean;
  /** The graph was built with `jpss: false`: also `edgeZero` (`jpssInputs`). */
  blind?: boolean;
}

export class PackedStates {
  /** Packed so far: states, agent rows, message slots, edge rows. */
  states = 0;
  rows = 0;
  links = 0;
  edges = 0;
  readonly state: Float32Array;
  readonly mask: Float32Array;
  readonly action: Uint32Array;
  readonly agents: Float32Array;
  readonly agentBatch: Uint32Array;
  readonly readMean: Float32Array;
  readonly readSink: Float32Array;
  readonly msgFrom: Uint32Array;
  readonly msgTo: Uint32Array;
  readonly inWeight: Float32Array;
  readonly outWeight: Float32Array;
  readonly edgeAgent: Uint32Array;
  readonly edgeRole: Uint32Array;
  readonly edgeBatch: Uint32Array;
  readonly edgeTarget: Float32Array;
  readonly edgeWeight: Float32Array;
  readonly edgeZero: Uint32Array;
  /** Per state: its first agent row and agents, first message slot and links, first edge row and edge rows. */
  readonly firstRow: Uint32Array;
  readonly agentCount: Uint32Array;
  readonly firstLink: Uint32Array;
  readonly linkCount: Uint32Array;
  readonly firstEdge: Uint32Array;
  readonly edgeCount: Uint32Array;
  private readonly S: number;
  private readonly A: number;
  private readonly Da: number;

  /**
   * Room for `capacity` states (their agent rows and message slots) and `edgeCapacity` edge rows,
   * the sizes of a graph built with `batch: capacity, edgeRows: edgeCapacity`. `graph`: the
   * checkpoint has the message-passing block (encoder version ≥ 3).
   */
  constructor(
    readonly enc: EncoderConfig,
    readonly capacity: number,
    readonly edgeCapacity: number,
    readonly graph: boolean,
  ) {
    const B = capacity;
    const N = enc.maxAgents;
    this.S = stateDim(enc);
    this.A = enc.roles + 2;
    this.Da = agentDim(enc);
    this.state = new Float32Array(B * this.S);
    this.mask = new Float32Array(B * this.A);
    this.action = new Uint32Array(B);
    this.agents = new Float32Array(B * N * this.Da);
    this.agentBatch = new Uint32Array(B * N);
    this.readMean = new Float32Array(B * N);
    this.readSink = new Float32Array(B * N);
    const M = B * maxLinks(enc);
    this.msgFrom = new Uint32Array(M);
    this.msgTo = new Uint32Array(M);
    this.inWeight = new Float32Array(M);
    this.outWeight = new Float32Array(M);
    this.edgeAgent = new Uint32Array(edgeCapacity);
    this.edgeRole = new Uint32Array(edgeCapacity);
    this.edgeBatch = new Uint32Array(edgeCapacity);
    this.edgeTarget = new Float32Array(edgeCapacity);
    this.edgeWeight = new Float32Array(edgeCapacity);
    this.edgeZero = new Uint32Array(edgeCapacity);
    this.firstRow = new Uint32Array(B);
    this.agentCount = new Uint32Array(B);
    this.firstLink = new Uint32Array(B);
    this.linkCount = new Uint32Array(B);
    this.firstEdge = new Uint32Array(B);
    this.edgeCount = new Uint32Array(B);
    this.padStates(0);
  }

  /** Empties it: what was packed becomes padding again (zeros; padding states allow only EXIT). */
  clear(): void {
    this.clearEdges();
    this.state.fill(0, 0, this.states * this.S);
    this.action.fill(0, 0, this.states);
    this.agents.fill(0, 0, this.rows * this.Da);
    this.agentBatch.fill(0, 0, this.rows);
    this.readMean.fill(0, 0, this.rows);
    this.readSink.fill(0, 0, this.rows);
    this.msgFrom.fill(0, 0, this.links);
    this.msgTo.fill(0, 0, this.links);
    this.inWeight.fill(0, 0, this.links);
    this.outWeight.fill(0, 0, this.links);
    this.padStates(0);
    this.states = 0;
    this.rows = 0;
    this.links = 0;
  }

  /** Drops the edge rows only (the states stay packed). */
  clearEdges(): void {
    const e = this.edges;
    this.edgeAgent.fill(0, 0, e);
    this.edgeRole.fill(0, 0, e);
    this.edgeBatch.fill(0, 0, e);
    this.edgeTarget.fill(0, 0, e);
    this.edgeWeight.fill(0, 0, e);
    this.firstEdge.fill(0, 0, this.states);
    this.edgeCount.fill(0, 0, this.states);
    this.edges = 0;
  }

  /** States from `from` on: only EXIT allowed and taken (a finite row that nothing reads). */
  private padStates(from: number): void {
    this.mask.fill(0, from * this.A);
    for (let b = from; b < this.capacity; b++) {
      this.mask[b * this.A + this.A - 1] = 1;
      this.action[b] = this.A - 1;
    }
  }

  private next(agents: number, links: number): number {
    const b = this.states;
    if (b >= this.capacity) throw new Error(`more than ${this.capacity} states in a pass`);
    this.firstRow[b] = this.rows;
    this.agentCount[b] = agents;
    this.firstLink[b] = this.links;
    this.linkCount[b] = links;
    this.firstEdge[b] = this.edges;
    this.edgeCount[b] = 0;
    for (let i = 0; i < agents; i++) this.agentBatch[this.rows + i] = b;
    this.states = b + 1;
    return b;
  }

  /**
   * Encodes a state into the next slot; returns its index b. The rows are written by the fast
   * forms of state-rows.ts, which give the reference forms' numbers (`addReference`) bit for bit.
   */
  add(task: TaskEncoding, state: ConstructionState): number {
    const links = summarize(this.enc, state);
    if (links < 0) return this.addReference(task, state);
    if (this.graph && links > maxLinks(this.enc))
      throw new Error(`more than ${maxLinks(this.enc)} links among ${this.enc.maxAgents} agents`);
    const n = Math.min(state.agents.length, this.enc.maxAgents);
    const row = this.rows;
    const slot = this.links;
    const b = this.next(n, this.graph ? links : 0);
    writeState(this.enc, task, state, this.state, b * this.S);
    writeMask(state, this.mask, b * this.A, this.A);
    this.action[b] = 0;
    writeAgentRows(this.enc, state, this.agents, row);
    if (this.graph) {
      writeLinks(this.enc, state, this, row, slot);
      this.links += links;
    }
    this.rows += n;
    return b;
  }

  /**
   * `add` from the reference encoders (`encodeState`, `actionMask`, `encodeAgentRows`,
   * `stateLinks`): the specification `add` is tested against, and the form for a hand-built state
   * whose agents share an id.
   */
  addReference(task: TaskEncoding, state: ConstructionState): number {
    const S = this.S;
    const links = this.graph ? stateLinks(this.enc, state) : null;
    const n = Math.min(state.agents.length, this.enc.maxAgents);
    const b = this.next(n, links ? links.from.length : 0);
    encodeState(this.enc, task, state, this.state.subarray(b * S, (b + 1) * S));
    this.mask.set(actionMask(state), b * this.A);
    this.action[b] = 0;
    encodeAgentRows(this.enc, state, this.agents, this.rows);
    if (links) {
      for (let i = 0; i < n; i++) {
        this.readMean[this.rows + i] = links.readMean[i] as number;
        this.readSink[this.rows + i] = links.readSink[i] as number;
      }
      links.from.forEach((j, i) => {
        const m = this.links + i;
        this.msgFrom[m] = this.rows + j;
        this.msgTo[m] = this.rows + (links.to[i] as number);
        this.inWeight[m] = links.inWeight[i] as number;
        this.outWeight[m] = links.outWeight[i] as number;
      });
      this.links += links.from.length;
    }
    this.rows += n;
    return b;
  }

  /** Copies state `r` of `src` (same encoder), with its edge rows, into the next slot; returns its index. */
  copy(src: PackedStates, r: number): number {
    const S = this.S;
    const A = this.A;
    const Da = this.Da;
    const n = src.agentCount[r] as number;
    const l = src.linkCount[r] as number;
    const e = src.edgeCount[r] as number;
    const r0 = src.firstRow[r] as number;
    const l0 = src.firstLink[r] as number;
    const e0 = src.firstEdge[r] as number;
    if (this.edges + e > this.edgeCapacity) throw new Error(`more than ${this.edgeCapacity} edge rows`);
    const row = this.rows;
    const b = this.next(n, l);
    // Short runs are copied element by element (float32 → float64 → float32 is exact; no views).
    this.state.set(src.state.subarray(r * S, (r + 1) * S), b * S);
    copyRows(src.mask, r * A, this.mask, b * A, A);
    this.action[b] = src.action[r] as number;
    copyRows(src.agents, r0 * Da, this.agents, row * Da, n * Da);
    copyRows(src.readMean, r0, this.readMean, row, n);
    copyRows(src.readSink, r0, this.readSink, row, n);
    for (let i = 0; i < l; i++) {
      this.msgFrom[this.links + i] = (src.msgFrom[l0 + i] as number) - r0 + row;
      this.msgTo[this.links + i] = (src.msgTo[l0 + i] as number) - r0 + row;
    }
    copyRows(src.inWeight, l0, this.inWeight, this.links, l);
    copyRows(src.outWeight, l0, this.outWeight, this.links, l);
    for (let i = 0; i < e; i++) {
      const d = this.edges + i;
      this.edgeAgent[d] = (src.edgeAgent[e0 + i] as number) - r0 + row;
      this.edgeBatch[d] = b;
    }
    copyRows(src.edgeRole, e0, this.edgeRole, this.edges, e);
    copyRows(src.edgeTarget, e0, this.edgeTarget, this.edges, e);
    copyRows(src.edgeWeight, e0, this.edgeWeight, this.edges, e);
    this.edgeCount[b] = e;
    this.rows += n;
    this.links += l;
    this.edges += e;
    return b;
  }

  /**
   * `copy(src, r)` for r = from … from + count − 1, as block copies when those states' agent rows,
   * message slots and edge rows follow each other in `src` (as `trainingBatch` packs them), else
   * state by state. The buffers end up as the row-by-row copies leave them.
   */
  copyRange(src: PackedStates, from: number, count: number): void {
    const to = from + count;
    if (from < 0 || to > src.states || this.states + count > this.capacity || count <= 0) {
      for (let r = from; r < to; r++) this.copy(src, r);
      return;
    }
    const r0 = src.firstRow[from] as number;
    const l0 = src.firstLink[from] as number;
    let rows = 0;
    let links = 0;
    let edges = 0;
    let e0 = -1;
    for (let r = from; r < to; r++) {
      const e = src.edgeCount[r] as number;
      if (e > 0 && e0 < 0) e0 = (src.firstEdge[r] as number) - edges;
      const blocks =
        src.firstRow[r] === r0 + rows &&
        src.firstLink[r] === l0 + links &&
        (e === 0 || src.firstEdge[r] === e0 + edges);
      if (!blocks || this.edges + edges + e > this.edgeCapacity) {
        for (let k = from; k < to; k++) this.copy(src, k);
        return;
      }
      rows += src.agentCount[r] as number;
      links += src.linkCount[r] as number;
      edges += e;
    }
    if (e0 < 0) e0 = 0;
    const S = this.S;
    const A = this.A;
    const Da = this.Da;
    const b0 = this.states;
    const row = this.rows;
    const link = this.links;
    const edge = this.edges;
    for (let r = from; r < to; r++) {
      const b = this.next(src.agentCount[r] as number, src.linkCount[r] as number);
      const e = src.edgeCount[r] as number;
      this.edgeCount[b] = e;
      this.rows += src.agentCount[r] as number;
      this.links += src.linkCount[r] as number;
      this.edges += e;
      for (let d = this.edges - e; d < this.edges; d++) this.edgeBatch[d] = b;
    }
    this.state.set(src.state.subarray(from * S, to * S), b0 * S);
    this.mask.set(src.mask.subarray(from * A, to * A), b0 * A);
    this.action.set(src.action.subarray(from, to), b0);
    this.agents.set(src.agents.subarray(r0 * Da, (r0 + rows) * Da), row * Da);
    this.readMean.set(src.readMean.subarray(r0, r0 + rows), row);
    this.readSink.set(src.readSink.subarray(r0, r0 + rows), row);
    for (let i = 0; i < links; i++) {
      this.msgFrom[link + i] = (src.msgFrom[l0 + i] as number) - r0 + row;
      this.msgTo[link + i] = (src.msgTo[l0 + i] as number) - r0 + row;
    }
    this.inWeight.set(src.inWeight.subarray(l0, l0 + links), link);
    this.outWeight.set(src.outWeight.subarray(l0, l0 + links), link);
    for (let i = 0; i < edges; i++) this.edgeAgent[edge + i] = (src.edgeAgent[e0 + i] as number) - r0 + row;
    this.edgeRole.set(src.edgeRole.subarray(e0, e0 + edges), edge);
    this.edgeTarget.set(src.edgeTarget.subarray(e0, e0 + edges), edge);
    this.edgeWeight.set(src.edgeWeight.subarray(e0, e0 + edges), edge);
  }

  /**
   * Edge rows for state b under role `role`, one per agent (state order); with `targets`, each
   * row's link (1 = linked) and weight 1 for the training graph. Returns the first row.
   */
  addEdges(b: number, role: number, targets?: ArrayLike<number>): number {
    const n = this.agentCount[b] as number;
    const first = this.edges;
    if (first + n > this.edgeCapacity) throw new Error(`more than ${this.edgeCapacity} edge rows`);
    if (this.edgeCount[b] === 0) this.firstEdge[b] = first;
    for (let i = 0; i < n; i++) {
      const e = first + i;
      this.edgeAgent[e] = (this.firstRow[b] as number) + i;
      this.edgeBatch[e] = b;
      this.edgeRole[e] = role;
      if (targets) {
        this.edgeTarget[e] = targets[i] as number;
        this.edgeWeight[e] = 1;
      }
    }
    this.edgeCount[b] = (this.edgeCount[b] as number) + n;
    this.edges += n;
    return first;
  }

  /**
   * Writes only the edge-row inputs (`edgeAgent`, `edgeRole`, `edgeBatch`, with `blind` also
   * `edgeZero`) to a graph that was last fed these states by `feed`: what `feed` would write after
   * `clearEdges` and `addEdges`, without handing the compute core the unchanged state inputs again
   * (it would compare their bits to find them unchanged).
   */
  feedEdges(model: InputSink, o: Pick<FeedOptions, 'blind'> = {}): void {
    model.setInput('edgeAgent', this.edgeAgent, this.edges);
    model.setInput('edgeRole', this.edgeRole, this.edges);
    model.setInput('edgeBatch', this.edgeBatch, this.edges);
    if (o.blind) model.setInput('edgeZero', this.edgeZero, this.edges);
  }

  /** Writes the packed inputs, with their live rows, to a compiled policy graph. */
  feed(model: InputSink, o: FeedOptions = {}): void {
    const B = this.states;
    model.setInput('state', this.state, B);
    model.setInput('mask', this.mask, B);
    model.setInput('agents', this.agents, this.rows);
    model.setInput('edgeAgent', this.edgeAgent, this.edges);
    model.setInput('edgeRole', this.edgeRole, this.edges);
    model.setInput('edgeBatch', this.edgeBatch, this.edges);
    if (this.graph) {
      model.setInput('agentBatch', this.agentBatch, this.rows);
      model.setInput('readMean', this.readMean, this.rows);
      model.setInput('readSink', this.readSink, this.rows);
      model.setInput('msgFrom', this.msgFrom, this.links);
      model.setInput('msgTo', this.msgTo, this.links);
      model.setInput('inWeight', this.inWeight, this.links);
      model.setInput('outWeight', this.outWeight, this.links);
    }
    if (o.targets) {
      model.setInput('action', this.action, B);
      model.setInput('edgeTarget', this.edgeTarget, this.edges);
      model.setInput('edgeWeight', this.edgeWeight, this.edges);
    }
    if (o.blind) model.setInput('edgeZero', this.edgeZero, this.edges);
  }
}

/** `to[at …] = from[start …]`, n entries, element by element (short runs: no views allocated). */
function copyRows<T extends Float32Array | Uint32Array>(
  from: T,
  start: number,
  to: T,
  at: number,
  n: number,
): void {
  for (let i = 0; i < n; i++) to[at + i] = from[start + i] as number;
}
