/**
 * The WebGPU backend. A training step is one queue submission: clear gradients, one compute pass
 * with every forward, backward, grad-norm and Adam dispatch, then a copy of the loss and the norm
 * (8 bytes) into a mappable buffer — the only read-back.
 *
 * Buffer byte layouts (all little-endian, 4-byte elements):
 * - params / grads / m / v arenas: f32[layout.total]; parameter p occupies floats
 *   [offset(p), offset(p) + size(p)), offsets aligned to 64 floats = 256 bytes (see layout.ts).
 * - one buffer per input and per op output: row-major f32 (u32 for index inputs), size(shape) × 4 bytes.
 * - one gradient buffer per non-parameter node on the loss path, same layout as its value.
 * - uniform arena: one 256-byte slot per kernel call (minUniformBufferOffsetAlignment), the first
 *   64 bytes bound; words are u32, f32 fields stored as their bit patterns (plan.ts f32Bits).
 * - norm: f32[2] = [‖g‖₂ before clipping, clip scale].
 * - readback: f32[2] = [loss, ‖g‖₂]; with RunOptions.read, a larger one per byte size: [loss, ‖g‖₂,
 *   then each read tensor's floats in the order asked].
 *
 * Long because the buffer layouts, the bind groups and the one-submission step must agree line for
 * line; they stay together so a layout change is seen in one place.
 */
import type { Graph, Tensor } from '../graph.ts';
import { size, upstreamOf } from '../graph.ts';
import { initialParams, paramLayout } from '../layout.ts';
import type { ParamLayout } from '../layout.ts';
import type { CompileOptions, Model, RunOptions, StepResult } from '../model.ts';
import type { ResolvedAdam, TrainState } from '../optimizer.ts';
import { resolveAdam } from '../optimizer.ts';
import { backwardOrder } from '../cpu/model.ts';
import type { GpuContext } from './device.ts';
import { adamCall, adamUniform, buildPlan, NORM_CALLS } from './plan.ts';
import { Freshness } from '../fresh.ts';
import type { Call, Plan } from './plan.ts';
import { csrOf, maxChunks } from './csr.ts';
import { dispatched, liveCall, liveRows, longestChunks, SCATTER_SHORT_CHUNKS } from './live.ts';
import { UNIFORM_SLOT, bindingOf, deviceCaches, encodeCall, readBack, type DeviceState } from './state.ts';
import {
  changedSpan,
  profileDispatches,
  profileTimestamps,
  type DispatchTime,
  type Encoded,
} from './profile.ts';

export type { DispatchTime } from './profile.ts';
export { deviceCaches } from './state.ts';

export interface GpuModelOptions extends CompileOptions {
  /**
   * Copy parameters and Adam state back to the host every N optimizer steps, so a lost device
   * resumes from at most N steps ago (0 = only on checkpoint()). Each copy reads back 12 bytes per
   * parameter.
   */
  hostSyncEvery?: number;
  /** Fuse runs of element-wise kernels into single dispatches (plan-fuse.ts; same bits). Default true. */
  fuse?: boolean;
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
    this.plan = buildPlan(graph, this.layout, this.backwardIds, this.adam?.clipNorm ?? 0, opts.fuse ?? true);
    if (this.adam) this.plan.update.push(adamCall(this.layout.total));
    const keys = new Map<string, { idx: number; rows: number }>();
    for (const c of [...this.plan.forward, ...this.plan.backward])
      for (const r of c.refs) if (r.t === 'csr') keys.set(`${r.idx}:${r.rows}`, { idx: r.idx, rows: r.rows });
    this.csrKeys = [...keys.values()];
    this.fresh = Freshness.of(graph);
    this.paramIds = graph.params().map((n) => n.id);
    this.callNodes = this.plan.forward.map((c) => [
      ...new Set([c, ...(c.fused?.parts ?? [])].flatMap((x) => (x.node === undefined ? [] : [x.node]))),
    ]);
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
    const { pool, pipelines } = deviceCaches(device);
    const owned: GPUBuffer[] = [];
    const take = (bytes: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer => {
      const b = pool.acquire(bytes, usage, label);
      owned.push(b);
      return b;
    };
    const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const total = this.layout.total * 4;
    const arenas = {
      params: take(total, S, 'params'),
      grads: take(total, S, 'grads'),
      m: take(total, S, 'adam m'),
      v: take(total, S, 'adam v'),
    };
    const values: (GPUBuffer | null)[] = [];
    const grads: (GPUBuffer | null)[] = [];
    const clear: GPUBuffer[] = [arenas.grads];
    for (const n of this.graph.nodes) {
      const bytes = size(n.shape) * 4;
      if (n.op.kind === 'param') {
        values.push(null);
        grads.push(null);
        continue;
      }
      values.push(take(bytes, S, `value ${n.id} ${n.op.kind}`));
      const onPath = this.backwardIds.includes(n.id);
      const g = onPath ? take(bytes, S, `grad ${n.id}`) : null;
      grads.push(g);
      if (g && n.id !== this.lossId) clear.push(g);
    }
    const maxCols = Math.max(
      1,
      ...this.graph.nodes.map((n) => (n.shape.length ? (n.shape[n.shape.length - 1] as number) : 1)),
    );
    const maxLen = Math.max(1, ...this.graph.nodes.map((n) => size(n.shape)));
    const ones = take(maxCols * 4, S, 'ones');
    device.queue.writeBuffer(ones, 0, new Float32Array(ones.size / 4).fill(1));
    const zeros = take(maxCols * 4, S, 'zeros');
    device.queue.writeBuffer(zeros, 0, new Float32Array(zeros.size / 4));
    const sink = take(maxLen * 4, S, 'sink');
    const norm = take(8, S, 'norm');
    const readback = take(8, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'readback');
    const calls = [...this.plan.forward, ...this.plan.backward, ...this.plan.update];
    const uniforms = take(
      Math.max(1, calls.length) * UNIFORM_SLOT,
      GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      'uniforms',
    );
    const words = new Uint32Array((calls.length * UNIFORM_SLOT) / 4);
    calls.forEach((c, i) => words.set(c.uniform, (i * UNIFORM_SLOT) / 4));
    device.queue.writeBuffer(uniforms, 0, words);

    const state: DeviceState = {
      generation: this.ctx.generation,
      pool,
      pipelines,
      owned,
      take,
      values,
      grads,
      temps: new Map(),
      csr: new Map(
        this.csrKeys.map(({ idx, rows }) => [
          `${idx}:${rows}`,
          {
            offsets: take((rows + 1) * 4, S, `csr offsets ${idx}:${rows}`),
            sources: take(Math.max(1, size(this.graph.node(idx).shape)) * 4, S, `csr sources ${idx}:${rows}`),
            chunks: take((rows + 1) * 4, S, `csr chunks ${idx}:${rows}`),
            chunkRow: take(
              maxChunks(size(this.graph.node(idx).shape), rows) * 4,
              S,
              `csr chunk rows ${idx}:${rows}`,
            ),
            host: null,
            count: size(this.graph.node(idx).shape),
          },
        ]),
      ),
      arenas,
      norm,
      ones,
      zeros,
      sink,
      uniforms,
      readback,
      readbacks: new Map(),
      words,
      live: null,
      forward: [],
      backward: [],
      update: [],
      clear,
    };
    let slot = 0;
    const encode = (list: Call[]): Encoded[] =>
      list.map((c) => encodeCall(device, this.graph, this.layout, state, c, slot++));
    state.forward = encode(this.plan.forward);
    state.backward = encode(this.plan.backward);
    state.update = encode(this.plan.update);

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
    for (const { idx } of this.csrKeys) this.writeCsr(state, idx);
    return state;
  }

  /** Rebuilds the CSR lists of index input `id` for every scatter that reads it; uploads what changed. */
  private writeCsr(s: DeviceState, id: number): void {
    const data = this.inputData.get(id) ?? new Uint32Array(size(this.graph.node(id).shape));
    for (const { idx, rows } of this.csrKeys) {
      if (idx !== id) continue;
      const bufs = s.csr.get(`${idx}:${rows}`);
      if (!bufs) continue;
      // Only the live positions of the index: its padding must not reach a destination row.
      const next = csrOf(data.subarray(0, bufs.count), rows);
      this.writeChanged(bufs.offsets, bufs.host?.offsets ?? null, next.offsets);
      this.writeChanged(bufs.sources, bufs.host?.sources ?? null, next.sources);
      this.writeChanged(bufs.chunks, bufs.host?.chunks ?? null, next.chunks);
      this.writeChanged(bufs.chunkRow, bufs.host?.chunkRow ?? null, next.chunkRow);
      bufs.host = next;
      const short = longestChunks(next.chunks) <= SCATTER_SHORT_CHUNKS;
      if (this.shortLists.get(`${idx}:${rows}`) !== short) this.liveChanged = true;
      this.shortLists.set(`${idx}:${rows}`, short);
    }
  }

  /** Counted queue.writeBuffer of `data` (a whole buffer, or from word `at`). */
  private write(buf: GPUBuffer, data: Float32Array | Uint32Array, at = 0): void {
    this.device.queue.writeBuffer(buf, at * 4, data.buffer, data.byteOffset, data.byteLength);
    this.ctx.counters.writes += 1;
    this.ctx.counters.writeBytes += data.byteLength;
  }

  /** Uploads the words where `next` differs from `prev` (the device copy), as one span; all without `prev`. */
  private writeChanged(
    buf: GPUBuffer,
    prev: Float32Array | Uint32Array | null,
    next: Float32Array | Uint32Array,
  ): void {
    if (!prev || prev.length !== next.length) return this.write(buf, next);
    const [lo, hi] = changedSpan(prev, next);
    if (lo < hi) this.write(buf, next.subarray(lo, hi), lo);
  }

  /** Rebuilds on the current device when the context was recovered; recovers first when lost. */
  private async ready(): Promise<DeviceState> {
    if (this.ctx.lost) await this.ctx.recover();
    if (!this.dev || this.dev.generation !== this.ctx.generation) {
      this.dev = this.materialize();
      this.recoveries += 1;
    }
    return this.dev;
  }

  /**
   * Keeps a host copy of every input and uploads only the span of words that differ from it (an
   * unchanged input costs a comparison, no upload); an index input's CSR lists likewise.
   */
  setInput(name: string, data: Float32Array | Uint32Array, rows?: number): void {
    const n = this.graph.inputs().find((x) => x.op.kind === 'input' && x.op.name === name);
    if (!n) throw new Error(`no input named "${name}"`);
    if (data.length !== size(n.shape))
      throw new Error(`input ${name}: ${data.length} values for shape [${n.shape.join(', ')}]`);
    const full = n.shape.length === 0 ? 1 : (n.shape[0] as number);
    const liveRows = rows ?? full;
    if (!Number.isInteger(liveRows) || liveRows < 0 || liveRows > full)
      throw new Error(`input ${name}: ${rows} live rows of ${full}`);
    const liveMoved = (this.inputLive.get(n.id) ?? full) !== liveRows;
    if (liveMoved) {
      this.inputLive.set(n.id, liveRows);
      this.liveChanged = true;
      this.fresh.bump(n.id);
    }
    const typed =
      n.dtype === 'u32'
        ? data instanceof Uint32Array
          ? data
          : Uint32Array.from(data)
        : data instanceof Float32Array
          ? data
          : Float32Array.from(data);
    const have = this.inputData.get(n.id);
    const live = this.dev && !this.ctx.lost && this.dev.generation === this.ctx.generation ? this.dev : null;
    const buf = live?.values[n.id];
    if (have) {
      const [lo, hi] = changedSpan(have, typed);
      if (lo === hi) return;
      (have as Uint32Array).set(typed.subarray(lo, hi) as Uint32Array, lo);
      if (buf) this.write(buf, have.subarray(lo, hi), lo);
    } else {
      const copy = typed.slice();
      this.inputData.set(n.id, copy);
      if (buf) this.write(buf, copy);
    }
    if (!liveMoved) this.fresh.bump(n.id);
    if (live && n.dtype === 'u32') this.writeCsr(live, n.id);
  }

  async step(opts: RunOptions = {}): Promise<StepResult> {
    try {
      return await this.stepOnce(opts);
    } catch (e) {
      // A loss during the step rejects mapAsync; rebuild from the host copy and run the step again.
      // device.lost may settle a little after the rejection, so wait for it briefly (100 ms).
      const device = this.device;
      const lost =
        this.ctx.lost ||
        (await Promise.race([
          device.lost.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 100)),
        ]));
      if (!lost) throw e;
      return this.stepOnce(opts);
    }
  }

  /**
   * Sizes every call for the current live rows (live.ts): rewrites the uniform words that changed,
   * the workgroup counts, and the CSR lists whose live count changed.
   */
  private applyLive(s: DeviceState): void {
    if (!this.liveChanged && s.live) return;
    const live = liveRows(this.graph, this.inputLive);
    for (const { idx, rows } of this.csrKeys) {
      const bufs = s.csr.get(`${idx}:${rows}`);
      if (!bufs || bufs.count === live[idx]) continue;
      bufs.count = live[idx] as number;
      this.writeCsr(s, idx);
    }
    const calls = [...this.plan.forward, ...this.plan.backward];
    const encoded = [...s.forward, ...s.backward];
    const next = s.words.slice();
    const short = (idx: number, rows: number): boolean => this.shortLists.get(`${idx}:${rows}`) === true;
    calls.forEach((c, i) => {
      const sized = liveCall(this.graph, c, live, short);
      (encoded[i] as Encoded).wg = sized.wg;
      next.set(sized.uniform, (i * UNIFORM_SLOT) / 4);
    });
    // One upload of the span of uniform words that changed.
    const [lo, hi] = changedSpan(s.words, next);
    if (lo < hi) {
      s.words.set(next.subarray(lo, hi), lo);
      this.write(s.uniforms, s.words.subarray(lo, hi), lo);
    }
    for (const c of calls) {
      const op = c.node === undefined ? null : this.graph.node(c.node).op;
      if (op?.kind === 'scatterAddRows' && (live[op.src] as number) < (live[op.idx] as number))
        throw new Error(`scatterAddRows: fewer live source rows than live indices (node ${op.src})`);
    }
    s.live = live;
    this.liveChanged = false;
  }

  private async stepOnce(opts: RunOptions): Promise<StepResult> {
    const s = await this.ready();
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
    // One read-back: [loss, ‖g‖₂] and then the tensors asked for, each at its own offset.
    const bytes = reads.reduce((b, n) => b + size(n.shape) * 4, 8);
    let rb = s.readback;
    if (reads.length > 0) {
      rb =
        s.readbacks.get(bytes) ??
        s.take(bytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'readback');
      s.readbacks.set(bytes, rb);
    }
    if (this.lossId !== null && !prune)
      enc.copyBufferToBuffer(s.values[this.lossId] as GPUBuffer, 0, rb, 0, 4);
    if (backward) enc.copyBufferToBuffer(s.norm, 0, rb, 4, 4);
    let at = 8;
    for (const n of reads) {
      const b = size(n.shape) * 4;
      const src = bindingOf(this.graph, this.layout, s, { t: 'value', id: n.id });
      enc.copyBufferToBuffer(src.buffer, src.offset ?? 0, rb, at, b);
      at += b;
    }
    device.queue.submit([enc.finish()]);
    counters.submissions += 1;
    if (update) this.paramsMoved();
    await rb.mapAsync(GPUMapMode.READ, 0, bytes);
    counters.readbacks += 1;
    const out = new Float32Array(rb.getMappedRange(0, bytes).slice(0));
    rb.unmap();
    let values: Float32Array[] | undefined;
    if (reads.length > 0) {
      at = 2;
      values = reads.map((n) => {
        const v = out.slice(at, at + size(n.shape));
        at += size(n.shape);
        return n.dtype === 'u32' ? Float32Array.from(new Uint32Array(v.buffer)) : v;
      });
    }
    if (update) {
      this.t += 1;
      if (this.hostSyncEvery > 0 && this.t % this.hostSyncEvery === 0) await this.checkpoint();
    }
    return {
      loss: this.lossId === null || prune ? NaN : (out[0] as number),
      gradNorm: backward ? (out[1] as number) : NaN,
      ...(values ? { values } : {}),
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
    const s = await this.ready();
    const n = this.graph.node(t);
    const bytes = size(n.shape) * 4;
    if (n.op.kind === 'param')
      return this.readBuffer(s.arenas.params, (this.layout.offsets.get(n.id) ?? 0) * 4, bytes);
    const out = await this.readBuffer(s.values[n.id] as GPUBuffer, 0, bytes);
    return n.dtype === 'u32' ? Float32Array.from(new Uint32Array(out.buffer)) : out;
  }

  async readGrad(t: Tensor): Promise<Float32Array> {
    const s = await this.ready();
    const n = this.graph.node(t);
    const bytes = size(n.shape) * 4;
    if (n.op.kind === 'param')
      return this.readBuffer(s.arenas.grads, (this.layout.offsets.get(n.id) ?? 0) * 4, bytes);
    const g = s.grads[n.id];
    if (!g) throw new Error('tensor has no gradient');
    return this.readBuffer(g, 0, bytes);
  }

  /** Copies parameters and Adam state to the host copy that recovery restores from. */
  async checkpoint(): Promise<TrainState> {
    const s = await this.ready();
    const bytes = this.layout.total * 4;
    const [params, m, v] = await Promise.all([
      this.readBuffer(s.arenas.params, 0, bytes),
      this.readBuffer(s.arenas.m, 0, bytes),
      this.readBuffer(s.arenas.v, 0, bytes),
    ]);
    this.host = { params, m, v, t: this.t };
    return { params: params.slice(), m: m.slice(), v: v.slice(), t: this.t };
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
    this.device.queue.writeBuffer(s.arenas.params, 0, this.host.params);
    this.device.queue.writeBuffer(s.arenas.m, 0, this.host.m);
    this.device.queue.writeBuffer(s.arenas.v, 0, this.host.v);
  }

  dispose(): void {
    const s = this.dev;
    if (s && s.generation === this.ctx.generation && !this.ctx.lost)
      for (const b of s.owned) s.pool.release(b);
    this.dev = null;
  }
}
