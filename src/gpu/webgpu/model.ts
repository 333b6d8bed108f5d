/**
 * The WebGPU backend. A training step is one queue submission: clear gradients, one compute pass
 * with every forward, backward, grad-norm and Adam dispatch, then a copy of the loss and the norm
 * (8 bytes, and the tensors it reads) into a mappable buffer — the only read-back. Steps are
 * submitted when called, so several can be in flight (`step`). The buffers and their byte layouts
 * are state.ts's.
 */
import { checkInput, indexLimits, type IndexLimit } from '../inputs.ts';
import type { Graph, Node as GraphNode, Tensor } from '../graph.ts';
import { backwardOrder, size, upstreamOf } from '../graph.ts';
import { initialParams, paramLayout } from '../layout.ts';
import type { ParamLayout } from '../layout.ts';
import type { Model, RunOptions, StepResult } from '../model.ts';
import type { ResolvedAdam, TrainState } from '../optimizer.ts';
import { resolveAdam } from '../optimizer.ts';
import type { GpuContext } from './device.ts';
import { planOptions, type GpuModelOptions } from './options.ts';
import { adamCall, adamUniform, buildPlan, callNodesOf, csrKeysOf, NORM_CALLS } from './plan.ts';
import { Freshness } from '../fresh.ts';
import type { Plan } from './plan.ts';
import { csrOf, csrScratch } from './csr.ts';
import { HeldInputs } from './held-inputs.ts';
import { dispatched, LiveSizer, liveRows, longestChunks, SCATTER_SHORT_CHUNKS } from './live.ts';
import {
  UNIFORM_SLOT,
  buildDeviceState,
  giveReadback,
  readBack,
  readBackMany,
  writeChangedWords,
  writeWords,
  type DeviceState,
} from './state.ts';
import { encodeStepReadback, stepReadbackValues, type StepReadback } from './step-readback.ts';
import {
  changedSpan,
  profileDispatches,
  profileTimestamps,
  type DispatchTime,
  type Encoded,
} from './profile.ts';

export type { DispatchTime } from './profile.ts';
export { deviceCaches } from './state.ts';
export type { GpuModelOptions } from './options.ts';

/** The inputs a step ran with: the arrays (never changed in place afterwards) and live rows. */
interface Inputs {
  data: Map<number, Float32Array | Uint32Array>;
  live: Map<number, number>;
}

/** A submitted step: its read-back (step-readback.ts) and what it ran. */
interface Submitted extends StepReadback {
  prune: boolean;
  backward: boolean;
  update: boolean;
  /** The Adam step count after it. */
  t: number;
}

export class GpuModel implements Model {
  readonly backend = 'webgpu' as const;
  private readonly layout: ParamLayout;
  private readonly plan: Plan;
  private readonly adam: ResolvedAdam | null;
  private readonly lossId: number | null;
  private readonly backwardIds: number[];
  private readonly hostSyncEvery: number;
  /** The host copy of the training state: restored onto a new device after a loss. */
  private host: TrainState;
  private t = 0;
  /** Latest input data, re-uploaded after a device loss. */
  private readonly inputData = new Map<number, Float32Array | Uint32Array>();
  private dev: DeviceState | null = null;
  /** The (index input, destination rows) pairs whose CSR lists the scatter calls read. */
  private readonly csrKeys: { idx: number; rows: number }[];
  /** Number of times this model rebuilt itself on a new device. */
  recoveries = 0;
  /** Live rows of the inputs set with `rows` (see live.ts). */
  private readonly inputLive = new Map<number, number>();
  private liveChanged = true;
  /** Per CSR key: its longest list is short (the one-pass scatter runs; live.ts SCATTER_SHORT_CHUNKS). */
  private readonly shortLists = new Map<string, boolean>();
  /** Which ops the next forward pass dispatches (../fresh.ts); everything is stale on a new device. */
  private fresh: Freshness;
  /** Per forward call: the nodes it computes (a fused call, each part's). */
  private readonly callNodes: number[][];
  private readonly paramIds: number[];
  /** Steps called and not settled. */
  private inFlight = 0;
  /** Input arrays that unsettled steps hold (`setInput` copies those), and spares to copy into. */
  readonly held = new HeldInputs();
  /** Index inputs set (or a new device) since their CSR lists were last built (applyLive). */
  private readonly csrStale = new Set<number>();
  private readonly inputByName = new Map<string, GraphNode>();
  private readonly indexLimits: Map<number, IndexLimit>;
  /** Sizes the forward and backward calls for live rows (live.ts). */
  private readonly sizer: LiveSizer;
  /** A scatter's lists changed length class since the calls were last sized (writeCsr). */
  private shortFlipped = false;
  /** Settles when every step called so far has. */
  private settled: Promise<void> = Promise.resolve();

  constructor(
    readonly ctx: GpuContext,
    readonly graph: Graph,
    opts: GpuModelOptions = {},
  ) {
    this.layout = paramLayout(graph);
    this.adam = opts.optimizer ? resolveAdam(opts.optimizer) : null;
    this.lossId = opts.loss ? opts.loss.id : null;
    if (opts.loss && size(opts.loss.shape) !== 1) throw new Error('loss must be a scalar');
    this.backwardIds = this.lossId === null ? [] : backwardOrder(graph, this.lossId);
    if (this.lossId !== null && !graph.node(this.lossId).requiresGrad)
      throw new Error('the loss does not depend on any parameter');
    this.hostSyncEvery = opts.hostSyncEvery ?? 100;
    const planOpts = planOptions(opts, ctx);
    this.plan = buildPlan(graph, this.layout, this.backwardIds, this.adam?.clipNorm ?? 0, planOpts);
    if (this.adam) this.plan.update.push(adamCall(this.layout.total));
    this.csrKeys = csrKeysOf(this.plan);
    this.sizer = new LiveSizer(graph, [...this.plan.forward, ...this.plan.backward]);
    this.fresh = Freshness.of(graph);
    this.paramIds = graph.params().map((n) => n.id);
    for (const n of graph.inputs()) if (n.op.kind === 'input') this.inputByName.set(n.op.name, n);
    this.indexLimits = indexLimits(graph);
    this.callNodes = this.plan.forward.map(callNodesOf);
    const params = initialParams(graph, this.layout);
    this.host = {
      params,
      m: new Float32Array(this.layout.total),
      v: new Float32Array(this.layout.total),
      t: 0,
    };
    this.dev = this.materialize();
  }

  private get device(): GPUDevice {
    return this.ctx.device;
  }

  private materialize(): DeviceState {
    this.fresh = Freshness.of(this.graph);
    const device = this.device;
    const state = buildDeviceState(device, this.ctx.generation, {
      graph: this.graph,
      layout: this.layout,
      plan: this.plan,
      backwardIds: this.backwardIds,
      lossId: this.lossId,
      csrKeys: this.csrKeys,
    });
    const { arenas, values, grads } = state;
    // Restore the host copy: the initial parameters, or the last synced state after a loss.
    device.queue.writeBuffer(arenas.params, 0, this.host.params);
    device.queue.writeBuffer(arenas.m, 0, this.host.m);
    device.queue.writeBuffer(arenas.v, 0, this.host.v);
    this.t = this.host.t;
    if (this.lossId !== null) {
      const seed = grads[this.lossId];
      if (seed) device.queue.writeBuffer(seed, 0, new Float32Array([1]));
    }
    for (const [id, data] of this.inputData) {
      const buf = values[id];
      if (buf) device.queue.writeBuffer(buf, 0, data);
    }
    // An index not set yet reads as zeros (a new buffer's contents), its lists likewise.
    for (const { idx } of this.csrKeys) this.csrStale.add(idx);
    return state;
  }

  /** Rebuilds the CSR lists of index input `idx` over `rows` destination rows; uploads what changed. */
  private writeCsr(s: DeviceState, idx: number, rows: number): void {
    const bufs = s.csr.get(`${idx}:${rows}`);
    if (!bufs) return;
    const data = this.inputData.get(idx) ?? new Uint32Array(size(this.graph.node(idx).shape));
    // Only the live positions of the index: its padding must not reach a destination row. Built in
    // the room the last upload's lists are not in.
    const capacity = size(this.graph.node(idx).shape);
    bufs.rooms ??= [csrScratch(capacity, rows), csrScratch(capacity, rows)];
    const room = bufs.rooms[0].offsets === bufs.host?.offsets ? bufs.rooms[1] : bufs.rooms[0];
    const next = csrOf(data.subarray(0, bufs.count), rows, room);
    for (const k of ['offsets', 'sources', 'chunks', 'chunkRow'] as const)
      writeChangedWords(this.device, this.ctx.counters, bufs[k], bufs.host?.[k] ?? null, next[k]);
    bufs.host = next;
    const short = longestChunks(next.chunks) <= SCATTER_SHORT_CHUNKS;
    if (this.shortLists.get(`${idx}:${rows}`) !== short) this.liveChanged = this.shortFlipped = true;
    this.shortLists.set(`${idx}:${rows}`, short);
  }

  private write(buf: GPUBuffer, data: Float32Array | Uint32Array, at = 0): void {
    writeWords(this.device, this.ctx.counters, buf, data, at);
  }

  /** Rebuilds on the current device when the context was recovered; recovers first when lost. */
  private async ready(): Promise<DeviceState> {
    if (this.ctx.lost) await this.ctx.recover();
    const now = this.readyNow();
    if (now) return now;
    this.dev = this.materialize();
    this.recoveries += 1;
    return this.dev;
  }

  /** The device state when it is current (no loss, no newer device), without waiting; else null. */
  private readyNow(): DeviceState | null {
    const s = this.dev;
    return s && !this.ctx.lost && s.generation === this.ctx.generation ? s : null;
  }

  /**
   * Keeps a host copy of every input and uploads only the span of its live rows' words that differ
   * from it (an unchanged input costs a comparison, no upload); an index input's CSR lists are
   * rebuilt before the next step (applyLive). While a step is in flight, an input it ran with is
   * copied before it changes (`step` keeps them).
   */
  setInput(name: string, data: Float32Array | Uint32Array, rows?: number): void {
    const n = this.inputByName.get(name);
    if (!n) throw new Error(`no input named "${name}"`);
    const liveRows = checkInput(n, data, rows, this.indexLimits.get(n.id));
    const typed =
      n.dtype === 'u32'
        ? data instanceof Uint32Array
          ? data
          : Uint32Array.from(data)
        : data instanceof Float32Array
          ? data
          : Float32Array.from(data);
    this.put(n.id, typed, liveRows);
  }

  /** setInput after its checks: input `id` holds `typed` with `liveRows` live rows from now on. */
  private put(id: number, typed: Float32Array | Uint32Array, liveRows: number): void {
    const n = this.graph.node(id);
    const liveMoved = (this.inputLive.get(id) ?? (n.shape.length === 0 ? 1 : n.shape[0])) !== liveRows;
    if (liveMoved) {
      this.inputLive.set(id, liveRows);
      this.liveChanged = true;
      this.fresh.bump(id);
    }
    let have = this.inputData.get(id);
    const live = this.readyNow();
    const buf = live?.values[id];
    if (have) {
      // Padding rows are read by no live result (Model.setInput): only the live rows are compared
      // and uploaded. The host copy stays what the device holds, padding included.
      const width = n.shape.length === 0 ? 1 : size(n.shape) / (n.shape[0] as number);
      const src = typed.subarray(0, liveRows * width);
      const [lo, hi] = changedSpan(have.subarray(0, src.length), src);
      if (lo === hi) return;
      if (this.held.held(have)) {
        have = this.held.copy(id, have);
        this.inputData.set(id, have);
      }
      (have as Uint32Array).set(src.subarray(lo, hi) as Uint32Array, lo);
      if (buf) this.write(buf, have.subarray(lo, hi), lo);
    } else {
      const copy = typed.slice();
      this.inputData.set(id, copy);
      if (buf) this.write(buf, copy);
    }
    if (!liveMoved) this.fresh.bump(id);
    // Its row lists are built once, for the data and live rows the next step runs with (applyLive).
    if (n.dtype === 'u32') this.csrStale.add(id);
  }

  /**
   * The inputs as they are now, for a step to keep: their arrays are not changed in place until
   * `release` (the step settled).
   */
  private inputsNow(): Inputs {
    const data = new Map(this.inputData);
    this.held.hold(data);
    return { data, live: new Map(this.inputLive) };
  }

  private release(inputs: Inputs): void {
    this.held.release(inputs.data, (id) => this.inputData.get(id));
  }

  /** Makes `to` the inputs again (what differs from the current ones, uploaded). */
  private useInputs(to: Inputs): void {
    for (const [id, data] of to.data) {
      const n = this.graph.node(id);
      const rows = to.live.get(id) ?? (n.shape.length === 0 ? 1 : (n.shape[0] as number));
      if (this.inputData.get(id) !== data || this.inputLive.get(id) !== to.live.get(id))
        this.put(id, data, rows);
    }
  }

  /**
   * Runs a step. When the device is ready its dispatches are encoded and submitted before step()
   * returns, so inputs set after the call (even before its promise settles) are the next step's:
   * a caller may set and submit step n + 1 while the device runs step n, and the queue runs them in
   * order. Each step keeps the inputs it was called with. When the device is lost, the steps in
   * flight run again on the new one, in the order they were called, each with its own inputs.
   */
  step(opts: RunOptions = {}): Promise<StepResult> {
    const inputs = this.inputsNow();
    const before = this.settled;
    const s = this.readyNow();
    let p: Promise<StepResult>;
    if (s) {
      let sent: Submitted | Error;
      try {
        sent = this.submit(s, opts);
      } catch (e) {
        sent = e instanceof Error ? e : new Error(String(e));
      }
      const first = sent instanceof Error ? Promise.reject(sent) : this.collect(s, sent);
      const device = this.device;
      p = first.catch((e: unknown) => this.afterFailure(e, device, inputs, before, opts));
    } else p = this.again(inputs, before, opts);
    this.inFlight += 1;
    const done = (): void => {
      this.inFlight -= 1;
      this.release(inputs);
    };
    this.settled = p.then(done, done);
    return p;
  }

  /** A failed step: run again on a new device when its `device` was lost, else the error stands. */
  private async afterFailure(
    e: unknown,
    device: GPUDevice,
    inputs: Inputs,
    before: Promise<void>,
    opts: RunOptions,
  ): Promise<StepResult> {
    // A loss during the step rejects mapAsync; device.lost may settle a little after the
    // rejection, so wait for it briefly (100 ms). A step before this one may have recovered already.
    const lost =
      this.ctx.lost ||
      device !== this.device ||
      (await Promise.race([
        device.lost.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 100)),
      ]));
    if (!lost) throw e;
    return this.again(inputs, before, opts);
  }

  /** Runs a step on a ready (or recovered) device with `inputs`, after the steps called before it. */
  private async again(inputs: Inputs, before: Promise<void>, opts: RunOptions): Promise<StepResult> {
    await before;
    const s = await this.ready();
    const latest = this.inputsNow();
    this.useInputs(inputs);
    const sent = this.submit(s, opts);
    this.useInputs(latest);
    this.release(latest);
    return this.collect(s, sent);
  }

  /**
   * Before a step: rebuilds the CSR lists of the index inputs set since the last step or whose live
   * count changed, then sizes every call for the current live rows (live.ts): rewrites the uniform
   * words that changed and the workgroup counts.
   */
  private applyLive(s: DeviceState): void {
    const live = this.liveChanged || !s.live ? liveRows(this.graph, this.inputLive) : s.live;
    for (const { idx, rows } of this.csrKeys) {
      const bufs = s.csr.get(`${idx}:${rows}`);
      if (!bufs || (bufs.count === live[idx] && !this.csrStale.has(idx))) continue;
      bufs.count = live[idx] as number;
      this.writeCsr(s, idx, rows);
    }
    this.csrStale.clear();
    if (!this.liveChanged && s.live) return;
    const next = s.nextWords;
    next.set(s.words);
    const short = (idx: number, rows: number): boolean => this.shortLists.get(`${idx}:${rows}`) === true;
    // A scatter whose lists changed length class switches form: all calls are sized again then.
    const prev = this.shortFlipped ? null : s.live;
    this.sizer.resize(live, prev, short, [...s.forward, ...s.backward], next, UNIFORM_SLOT / 4);
    // One upload of the span of uniform words that changed.
    const [lo, hi] = changedSpan(s.words, next);
    if (lo < hi) {
      s.words.set(next.subarray(lo, hi), lo);
      this.write(s.uniforms, s.words.subarray(lo, hi), lo);
    }
    s.live = live;
    this.liveChanged = false;
    this.shortFlipped = false;
  }

  /** Encodes and submits one step on `s` (one submission); its read-back is left to `collect`. */
  private submit(s: DeviceState, opts: RunOptions): Submitted {
    this.applyLive(s);
    const device = this.device;
    const backward = this.lossId !== null && (opts.backward ?? true);
    const update = backward && this.adam !== null && (opts.update ?? true);
    if (update) this.writeAdamUniform(s, opts.lr);
    const enc = device.createCommandEncoder();
    if (backward) for (const b of s.clear) enc.clearBuffer(b);
    const pass = enc.beginComputePass();
    const counters = this.ctx.counters;
    const run = (list: Encoded[]): void => {
      for (const e of list) {
        if (e.wg[0] === 0) continue; // a scatter form that is off (live.ts)
        pass.setPipeline(e.pipeline);
        pass.setBindGroup(0, e.bindGroup);
        pass.dispatchWorkgroups(e.wg[0], e.wg[1], e.wg[2]);
        counters.dispatches += 1;
        counters.workgroups += e.wg[0] * e.wg[1] * e.wg[2];
      }
    };
    const reads = (opts.read ?? []).map((t) => this.graph.node(t));
    const prune = opts.prune === true && !backward && reads.length > 0;
    const ids = reads.map((n) => n.id);
    const need = prune ? upstreamOf(this.graph, ids) : null;
    run(this.staleForward(s, need));
    if (backward) {
      run(s.backward);
      run(update ? s.update : s.update.slice(0, NORM_CALLS));
    }
    pass.end();
    // One read-back: [loss, ‖g‖₂], the tensors asked for, and the training state when asked for.
    const rb = encodeStepReadback(enc, s, this.graph, this.layout, {
      lossId: this.lossId,
      prune,
      backward,
      reads,
      state: opts.state === true,
    });
    device.queue.submit([enc.finish()]);
    counters.submissions += 1;
    // The Adam step count moves at submission: the next step's bias corrections follow this one's.
    if (update) {
      this.paramsMoved();
      this.t += 1;
    }
    return { ...rb, prune, backward, update, t: this.t };
  }

  /** Waits for a submitted step's read-back and gives its result. */
  private async collect(s: DeviceState, sent: Submitted): Promise<StepResult> {
    const { rb, bytes, prune, backward, update } = sent;
    await rb.mapAsync(GPUMapMode.READ, 0, bytes);
    this.ctx.counters.readbacks += 1;
    const out = new Float32Array(rb.getMappedRange(0, bytes).slice(0));
    rb.unmap();
    giveReadback(s, bytes, rb);
    const { values, state } = stepReadbackValues(out, sent);
    // The state read with the step is the host copy a lost device resumes from, as checkpoint() makes.
    if (state) this.host = { ...state, t: sent.t };
    if (update && this.hostSyncEvery > 0 && sent.t % this.hostSyncEvery === 0) await this.checkpoint();
    return {
      loss: this.lossId === null || prune ? NaN : (out[0] as number),
      gradNorm: backward ? (out[1] as number) : NaN,
      ...(values ? { values } : {}),
      ...(state
        ? { state: { params: state.params.slice(), m: state.m.slice(), v: state.v.slice(), t: sent.t } }
        : {}),
    };
  }

  /**
   * Runs one training step with every dispatch in its own submission, `repeat` times in a row, and
   * times each (profile.ts `profileDispatches`); with `timestamps` on a device that has
   * `timestamp-query`, all in one submission timed by the device (`profileTimestamps`). Diagnostics for benchmarks only: it updates the
   * parameters as step() does, and with repeat > 1 accumulating kernels run several times, so
   * values, gradients and parameters afterwards are not a training step's (profile a throwaway model).
   */
  async profileStep(repeat = 1, opts: RunOptions & { timestamps?: boolean } = {}): Promise<DispatchTime[]> {
    const s = await this.ready();
    this.applyLive(s);
    const update = this.lossId !== null && this.adam !== null && (opts.update ?? true);
    if (update) this.writeAdamUniform(s, opts.lr);
    const stamps = opts.timestamps === true && this.device.features.has('timestamp-query');
    const out = await (stamps ? profileTimestamps : profileDispatches)(this.device, s.clear, repeat, [
      ['forward', ...dispatched(s.forward, this.plan.forward)],
      ['backward', ...dispatched(this.lossId === null ? [] : s.backward, this.plan.backward)],
      [
        'update',
        this.lossId === null ? [] : update ? s.update : s.update.slice(0, NORM_CALLS),
        this.plan.update,
      ],
    ]);
    if (update) {
      this.t += 1;
      this.paramsMoved();
    }
    return out;
  }

  /**
   * The forward calls of this pass: those of ops that are stale (../fresh.ts: an input, a parameter
   * or an op they read changed since they ran), with `need` only those it marks; marks them run. A
   * fused call runs when any of its parts does; a call of no node always runs.
   */
  private staleForward(s: DeviceState, need: Uint8Array | null): Encoded[] {
    const go = new Uint8Array(this.graph.nodes.length);
    for (const n of this.graph.nodes) {
      if (n.op.kind === 'input' || n.op.kind === 'param' || (need && need[n.id] === 0)) continue;
      if (this.fresh.stale(n.id)) {
        go[n.id] = 1;
        this.fresh.ran(n.id);
      }
    }
    return s.forward.filter((_, i) => {
      const ns = this.callNodes[i] as number[];
      return ns.length === 0 || ns.some((id) => go[id] === 1);
    });
  }

  private paramsMoved(): void {
    for (const id of this.paramIds) this.fresh.bump(id);
  }

  /** The adam call's uniform for the next step: learning rate and bias corrections. */
  private writeAdamUniform(s: DeviceState, lr: number | undefined): void {
    const a = this.adam;
    if (!a) return;
    const slot = this.plan.forward.length + this.plan.backward.length + this.plan.update.length - 1;
    this.write(s.uniforms, adamUniform(a, this.layout.total, this.t + 1, lr), (slot * UNIFORM_SLOT) / 4);
  }

  private readBuffer(buf: GPUBuffer, offset: number, bytes: number): Promise<Float32Array> {
    return readBack(this.device, this.ctx.counters, buf, offset, bytes);
  }

  async read(t: Tensor): Promise<Float32Array> {
    const s = this.readyNow() ?? (await this.ready());
    const n = this.graph.node(t);
    const bytes = size(n.shape) * 4;
    if (n.op.kind === 'param')
      return this.readBuffer(s.arenas.params, (this.layout.offsets.get(n.id) ?? 0) * 4, bytes);
    const out = await this.readBuffer(s.values[n.id] as GPUBuffer, 0, bytes);
    return n.dtype === 'u32' ? Float32Array.from(new Uint32Array(out.buffer)) : out;
  }

  async readGrad(t: Tensor): Promise<Float32Array> {
    const s = this.readyNow() ?? (await this.ready());
    const n = this.graph.node(t);
    const bytes = size(n.shape) * 4;
    if (n.op.kind === 'param')
      return this.readBuffer(s.arenas.grads, (this.layout.offsets.get(n.id) ?? 0) * 4, bytes);
    const g = s.grads[n.id];
    if (!g) throw new Error('tensor has no gradient');
    return this.readBuffer(g, 0, bytes);
  }

  /**
   * Copies parameters and Adam state to the host copy that recovery restores from: as they are
   * after every step submitted so far (the copies are queued behind them, before this returns when
   * the device is ready).
   */
  async checkpoint(): Promise<TrainState> {
    const s = this.readyNow() ?? (await this.ready());
    const bytes = this.layout.total * 4;
    const t = this.t;
    // The three arenas in one submission and one map.
    const [params, m, v] = (await readBackMany(this.device, this.ctx.counters, [
      { buf: s.arenas.params, offset: 0, bytes },
      { buf: s.arenas.m, offset: 0, bytes },
      { buf: s.arenas.v, offset: 0, bytes },
    ])) as [Float32Array, Float32Array, Float32Array];
    this.host = { params, m, v, t };
    return { params: params.slice(), m: m.slice(), v: v.slice(), t };
  }

  exportState(): Promise<TrainState> {
    return this.checkpoint();
  }

  importState(st: TrainState): void {
    if (st.params.length !== this.layout.total) throw new Error('state does not match this graph');
    this.host = { params: st.params.slice(), m: st.m.slice(), v: st.v.slice(), t: st.t };
    this.t = st.t;
    this.paramsMoved();
    const s = this.dev;
    if (!s || this.ctx.lost || s.generation !== this.ctx.generation) return;
    this.write(s.arenas.params, this.host.params);
    this.write(s.arenas.m, this.host.m);
    this.write(s.arenas.v, this.host.v);
  }

  importParams(params: Float32Array): void {
    if (params.length !== this.layout.total) throw new Error('parameters do not match this graph');
    this.host = { ...this.host, params: params.slice() };
    this.paramsMoved();
    const s = this.dev;
    if (!s || this.ctx.lost || s.generation !== this.ctx.generation) return;
    this.write(s.arenas.params, this.host.params);
  }

  /** Steps in flight still settle; their read-backs go back to the pool only after they have. */
  dispose(): void {
    const s = this.dev;
    this.dev = null;
    if (!s) return;
    const release = (): void => {
      if (s.generation === this.ctx.generation && !this.ctx.lost) for (const b of s.owned) s.pool.release(b);
    };
    if (this.inFlight > 0) void this.settled.then(release);
    else release();
  }
}
