/**
 * `npm run bench:cpu-kernels`: matrix product throughput (GFLOP/s, 2·N³ per product) at N = 256,
 * 512, 1024, 2048 on the CPU-side backends: the TypeScript kernel (src/gpu/cpu), the WebAssembly
 * SIMD kernel (src/gpu/wasm, one thread; also with B transposed and A transposed, the backward's
 * forms; and A·B on two threads, worker_threads sharing the module's memory) and onnxruntime-web's
 * wasm execution provider (a MatMul of two graph inputs) on one and on two threads, the ceiling.
 *
 * Each backend runs in its own child process (this file with `--child <backend>`), so that no
 * runtime's threads share a process with another's: onnxruntime-web in the same process as the
 * two-thread wasm product once stalled the latter 30×. The TypeScript, wasm and two-thread wasm
 * children alternate per repetition so they see the same load; the onnxruntime-web children are
 * started after them at each N, timed, then stopped. Each product's process CPU time (all its
 * threads) is taken beside its wall time: CPU / wall near 2 means both threads ran at once, near 1
 * that the second thread found no free core. The load average is recorded at every N.
 *
 * Writes bench/results/cpu-kernels.json and the "## CPU kernels (WebAssembly SIMD)" section of
 * docs/benchmarks.md. Options: --quick (256 and 512 only), --sizes=1024,2048.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

type Backend = 'ts' | 'wasm' | 'wasm2' | 'ort' | 'ort2';
type Form = 'ab' | 'abt' | 'atb';
const FORMS: Record<Backend, Form[]> = {
  ts: ['ab'],
  wasm: ['ab', 'abt', 'atb'],
  wasm2: ['ab'],
  ort: ['ab'],
  ort2: ['ab'],
};
/** Per backend, form and size: at least 2 timed products (1 when one exceeds it), more while under this many ms. */
const BUDGET_MS = 4000;
const SAMPLE = 4096;

type Msg = { op: 'size'; n: number } | { op: 'run'; form: Form } | { op: 'idle'; ms: number };
type Reply =
  | { op: 'ready'; sample: number[]; hash: number }
  | { op: 'timed'; ms: number; cpuMs: number; workerChunks: number }
  | { op: 'idle'; cpuMs: number };

function fill(a: Float32Array, seed: number): void {
  let s = seed;
  for (let i = 0; i < a.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = s / 2 ** 32 - 0.5;
  }
}

/** FNV-1a over the bits of every element: equal hashes, bit-identical products (in practice). */
function hashOf(c: Float32Array): number {
  const u = new Uint32Array(c.buffer, c.byteOffset, c.length);
  let h = 0x811c9dc5;
  for (let i = 0; i < u.length; i++) h = Math.imul(h ^ (u[i] as number), 16777619) >>> 0;
  return h;
}

// ---------------------------------------------------------------- child: one backend

async function child(backend: Backend): Promise<void> {
  type Run = (form: Form) => Promise<void>;
  let run: Run = async () => undefined;
  let out: () => Float32Array = () => new Float32Array(0);
  /** Chunks the two-thread product's worker ran so far (0 elsewhere). */
  let workerChunks = (): number => 0;
  const send = (r: Reply): void => void process.send?.(r);
  const setup = async (n: number): Promise<void> => {
    if (backend === 'ts') {
      const { matmul } = await import('../src/gpu/cpu/ops.ts');
      const [A, B, C] = [new Float32Array(n * n), new Float32Array(n * n), new Float32Array(n * n)];
      fill(A, 1);
      fill(B, 2);
      run = async () => matmul(A, B, C, 1, n, n, n, false, false, false);
      out = () => C;
    } else if (backend === 'wasm' || backend === 'wasm2') {
      const { WasmArena, wasmKernels } = await import('../src/gpu/wasm/kernels.ts');
      const { nodeThreadSpawner } = await import('../src/workers/wasm-threads.node.ts');
      const arena = await WasmArena.create(3 * n * n, backend === 'wasm2' ? nodeThreadSpawner : undefined);
      workerChunks = () => arena.threads?.workerChunks ?? 0;
      const k = wasmKernels(arena);
      const [A, B, C] = [arena.f32(n * n), arena.f32(n * n), arena.f32(n * n)];
      fill(A, 1);
      fill(B, 2);
      run = async (form) => k.matmul(A, B, C, 1, n, n, n, form === 'atb', form === 'abt', false);
      out = () => C;
      await run('ab');
      if (backend === 'wasm2' && !arena.calls.get('matmul2'))
        throw new Error('the two-thread product ran on one thread');
    } else {
      const ort = await import('onnxruntime-web');
      const { GraphBuilder, encodeModel } = await import('../src/lm/onnx/writer.ts');
      ort.env.wasm.numThreads = backend === 'ort2' ? 2 : 1;
      const g = new GraphBuilder('matmul');
      const a = g.input('a', 'float32', [n, n]);
      const b = g.input('b', 'float32', [n, n]);
      g.node('MatMul', [a, b], {}, { output: 'c' });
      g.output('c', 'float32', [n, n]);
      const bytes = encodeModel(g.build({ opsets: { '': 13 }, producer: 'baton bench' }));
      const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
      const [A, B] = [new Float32Array(n * n), new Float32Array(n * n)];
      fill(A, 1);
      fill(B, 2);
      const feeds = { a: new ort.Tensor('float32', A, [n, n]), b: new ort.Tensor('float32', B, [n, n]) };
      let C = new Float32Array(0);
      run = async () => {
        const r = await session.run(feeds);
        C = Float32Array.from(r.c?.data as Float32Array);
        r.c?.dispose();
      };
      out = () => C;
    }
    for (const f of FORMS[backend]) await run(f);
    await run('ab');
  };
  process.on('message', (m: Msg) => {
    void (async () => {
      if (m.op === 'size') {
        await setup(m.n);
        const c = out();
        const stride = Math.max(1, Math.floor(c.length / SAMPLE));
        const sample: number[] = [];
        for (let i = 0; i < c.length; i += stride) sample.push(c[i] as number);
        send({ op: 'ready', sample, hash: hashOf(c) });
      } else if (m.op === 'run') {
        const [u0, w0] = [process.cpuUsage(), workerChunks()];
        const t0 = performance.now();
        await run(m.form);
        const ms = performance.now() - t0;
        const u = process.cpuUsage(u0);
        send({ op: 'timed', ms, cpuMs: (u.user + u.system) / 1000, workerChunks: workerChunks() - w0 });
      } else {
        const u0 = process.cpuUsage();
        await new Promise((ok) => setTimeout(ok, m.ms));
        const u = process.cpuUsage(u0);
        send({ op: 'idle', cpuMs: (u.user + u.system) / 1000 });
      }
    })().catch((e: unknown) => {
      process.stderr.write(`${backend}: ${String(e)}\n`);
      process.exit(1);
    });
  });
}

// ---------------------------------------------------------------- parent

class Child {
  private readonly proc: ChildProcess;
  private pending: ((r: Reply) => void) | null = null;
  constructor(readonly backend: Backend) {
    this.proc = fork(import.meta.filename, ['--child', backend], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.proc.on('message', (r: Reply) => this.pending?.(r));
    this.proc.on('exit', (code) => {
      if (code !== 0 && code !== null) throw new Error(`the ${backend} child exited with ${code}`);
    });
  }
  ask<R extends Reply>(m: Msg): Promise<R> {
    return new Promise((ok) => {
      this.pending = (r) => ok(r as R);
      this.proc.send(m);
    });
  }
  stop(): void {
    this.proc.kill();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] as number;
};

type Path = `${Backend}:${Form}`;
interface Row {
  n: number;
  gflops: Partial<Record<Path, number>>;
  /** Median process CPU time / wall time per product. */
  cpuPerWall: Partial<Record<Path, number>>;
  reps: Partial<Record<Path, number>>;
  maxDiff: number;
  bitIdentical2: boolean;
  /** CPU ms onnxruntime-web's two-thread child used in 1 s idle after its last product. */
  ort2IdleCpuMs: number;
  /** Share of the two-thread products' row chunks that the worker ran (8 chunks per product at N ≥ 512). */
  workerShare: number;
  load: [number, number, number];
}

/** Times `paths` on their children, alternating the order per repetition. */
async function timePaths(
  children: Map<Backend, Child>,
  paths: Path[],
  times: Map<Path, { ms: number[]; cpu: number[]; workerChunks: number }>,
): Promise<void> {
  for (const p of paths) times.set(p, { ms: [], cpu: [], workerChunks: 0 });
  const enough = (p: Path): boolean => {
    const t = times.get(p)!.ms;
    const spent = t.reduce((a, b) => a + b, 0);
    return spent > BUDGET_MS && (t.length >= 2 || (t[0] ?? 0) > BUDGET_MS);
  };
  for (let rep = 0; rep < 200; rep++) {
    const order = rep % 2 === 0 ? paths : [...paths].reverse();
    let more = false;
    for (const p of order) {
      if (enough(p)) continue;
      more = true;
      const [backend, form] = p.split(':') as [Backend, Form];
      const r = await children.get(backend)!.ask<Extract<Reply, { op: 'timed' }>>({ op: 'run', form });
      times.get(p)!.ms.push(r.ms);
      times.get(p)!.cpu.push(r.cpuMs / r.ms);
      times.get(p)!.workerChunks += r.workerChunks;
    }
    if (!more) break;
  }
}

async function parent(): Promise<void> {
  const sizesArg = process.argv.find((a) => a.startsWith('--sizes='));
  const sizes = sizesArg
    ? sizesArg.slice(8).split(',').map(Number)
    : process.argv.includes('--quick')
      ? [256, 512]
      : [256, 512, 1024, 2048];
  const load0 = loadAverage();
  const rows: Row[] = [];
  for (const n of sizes) {
    const load = loadAverage();
    const own = new Map<Backend, Child>((['ts', 'wasm', 'wasm2'] as Backend[]).map((b) => [b, new Child(b)]));
    const ready = new Map<Backend, Extract<Reply, { op: 'ready' }>>();
    for (const [b, c] of own) ready.set(b, await c.ask({ op: 'size', n }));
    const times = new Map<Path, { ms: number[]; cpu: number[]; workerChunks: number }>();
    await timePaths(own, ['ts:ab', 'wasm:ab', 'wasm:abt', 'wasm:atb', 'wasm2:ab'], times);
    for (const c of own.values()) c.stop();
    // onnxruntime-web after the others, each thread count in its own process, alone.
    let ort2IdleCpuMs = 0;
    for (const b of ['ort', 'ort2'] as Backend[]) {
      const c = new Child(b);
      ready.set(b, await c.ask({ op: 'size', n }));
      await timePaths(new Map([[b, c]]), [`${b}:ab`], times);
      if (b === 'ort2')
        ort2IdleCpuMs = (await c.ask<Extract<Reply, { op: 'idle' }>>({ op: 'idle', ms: 1000 })).cpuMs;
      c.stop();
    }
    const ref = ready.get('wasm')!;
    let maxDiff = 0;
    for (const b of ['ts', 'ort', 'ort2'] as Backend[])
      ready.get(b)!.sample.forEach((v, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(v - (ref.sample[i] as number)));
      });
    if (maxDiff > 1e-3 * Math.sqrt(n)) throw new Error(`products disagree at ${n}: ${maxDiff}`);
    const bitIdentical2 = ready.get('wasm2')!.hash === ref.hash;
    if (!bitIdentical2) throw new Error(`two threads differ from one at ${n}`);
    const flop = 2 * n ** 3;
    const two = times.get('wasm2:ab')!;
    const chunks = Math.min(8, Math.max(2, Math.floor(n / 64)));
    const workerShare = +(two.workerChunks / (chunks * two.ms.length)).toFixed(2);
    const row: Row = {
      n,
      gflops: {},
      cpuPerWall: {},
      reps: {},
      maxDiff,
      bitIdentical2,
      ort2IdleCpuMs,
      workerShare,
      load,
    };
    for (const [p, t] of times) {
      row.gflops[p] = +(flop / median(t.ms) / 1e6).toFixed(2);
      row.cpuPerWall[p] = +median(t.cpu).toFixed(2);
      row.reps[p] = t.ms.length;
    }
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  const load1 = loadAverage();
  const m = machine();
  writeResults('cpu-kernels', { date: new Date().toISOString(), machine: m, load: [load0, load1], rows });
  const f = (x: number | undefined): string => (x ?? 0).toFixed(2);
  const table = [
    '| N | load avg | TypeScript | wasm SIMD A·B | wasm A·Bᵀ | wasm Aᵀ·B | wasm A·B, 2 threads (CPU/wall, worker share) | onnxruntime-web 1 thread | onnxruntime-web 2 threads (CPU/wall) | wasm / TypeScript | wasm / ort 1 thread | wasm 2 threads / wasm 1 thread | wasm 2 threads / ort 1 thread | ort 2 threads / ort 1 thread |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => {
      const g = r.gflops;
      const x = (a: number | undefined, b: number | undefined): string => `${f((a ?? 0) / (b ?? 1))}×`;
      return `| ${r.n} | ${r.load[0]} | ${f(g['ts:ab'])} | ${f(g['wasm:ab'])} | ${f(g['wasm:abt'])} | ${f(g['wasm:atb'])} | ${f(g['wasm2:ab'])} (${f(r.cpuPerWall['wasm2:ab'])}, ${Math.round(100 * r.workerShare)}%) | ${f(g['ort:ab'])} | ${f(g['ort2:ab'])} (${f(r.cpuPerWall['ort2:ab'])}) | ${x(g['wasm:ab'], g['ts:ab'])} | ${x(g['wasm:ab'], g['ort:ab'])} | ${x(g['wasm2:ab'], g['wasm:ab'])} | ${x(g['wasm2:ab'], g['ort:ab'])} | ${x(g['ort2:ab'], g['ort:ab'])} |`;
    }),
  ];
  writeDocSection(
    'CPU kernels (WebAssembly SIMD)',
    [
      'Matrix product C = A·B of two N×N f32 matrices, GFLOP/s (2·N³ per product, median over at least',
      "two products per path): the TypeScript backend's kernel (`src/gpu/cpu/ops-matmul.ts`), the wasm",
      "backend's SIMD kernel (`src/gpu/wasm/assembly/matmul.ts`; one thread, also with B transposed and",
      'with A transposed, the forms the backward pass uses; and A·B on two threads, the output rows split',
      "with a worker_threads worker on the shared memory, `src/gpu/wasm/threads.ts`), and onnxruntime-web's",
      'wasm execution provider (a MatMul of two graph inputs) on one and on two threads. Each backend runs',
      "in its own child process, so no runtime shares a process with another's threads; the TypeScript and",
      'wasm children alternate per repetition, the onnxruntime-web ones run after them at each N, alone.',
      '"CPU/wall" is the process CPU time (all its threads) per product over its wall time: about 2 when',
      'both threads ran at once, about 1 when the second thread found no free core; "worker share" is',
      "the share of the two-thread products' row chunks the worker ran (the caller runs the rest). The products agree",
      'within 1e-3·√N, and the two-thread wasm product is bit-identical to the one-thread one (checked at',
      'every N). Command: `npm run bench:cpu-kernels` (writes `bench/results/cpu-kernels.json`).',
      '',
      `- Measured ${new Date().toISOString().slice(0, 10)} on ${m.cores} CPU cores (${m.cpu}), Node ${m.node}; load average ${load0[0]} at the start and ${load1[0]} at the end of the run, and at the start of each N in the table (the cores are shared with other work, so absolute numbers move with it; the ratios come from the same run).`,
      '',
      ...table,
      '',
    ].join('\n'),
  );
}

const at = process.argv.indexOf('--child');
if (at >= 0) await child(process.argv[at + 1] as Backend);
else await parent();
