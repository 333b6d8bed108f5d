/**
 * Construction-policy inference speed on the CPU backend: one JPSS step = encode the task and the
 * state, node head, sample, edge head, sample links. Compared in the same run with
 * - "fused": the same network with the edge head for every role folded into the node pass (one
 *   pass per step instead of two);
 * - "encoder only": the task n-gram hashing, cues, state/agent features and link lists, no network.
 * Writes bench/results/policy.json and the "Policy" section of docs/benchmarks.md (only that
 * section).
 *
 *   npm run bench:policy
 *
 * States: every state visited by sampled constructions of the prior on MASBench-style tasks of
 * all five axes (values 2..12), replayed round-robin.
 */
import { AXES, generateTask } from '../src/masbench/index.ts';
import { createRng } from '../src/core/rng.ts';
import type { ConstructionState } from '../src/policy/construction.ts';
import { agentDim, encodeAgents, encodeState, encodeTask, stateDim } from '../src/policy/encoder.ts';
import { encodeGraph, graphInputs } from '../src/policy/links.ts';
import { PolicyNetwork, encoderConfig } from '../src/policy/network.ts';
import { priorCheckpoint } from '../src/policy/prior.ts';
import { DEFAULT_POOL } from '../src/policy/roles.ts';
import { construct } from '../src/policy/episode.ts';
import { policyStep, stepRng } from '../src/policy/sample.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const WARMUP = 300;
const STEPS = 3000;
const GOAL_MS = 5;

interface Sample {
  query: string;
  state: ConstructionState;
}

interface Row {
  variant: string;
  median_ms: number;
  p95_ms: number;
  mean_ms: number;
}

const pool = DEFAULT_POOL;

async function collectStates(net: PolicyNetwork): Promise<Sample[]> {
  const out: Sample[] = [];
  for (const axis of AXES) {
    for (let value = 2; value <= 12; value++) {
      const t = generateTask({ axis, value, seed: value * 31 + 7 });
      const task = { query: t.question, groundTruth: null, source: { kind: 'custom' as const } };
      await construct({
        policy: net,
        pool,
        task,
        seed: value,
        onStep: (o) => {
          if (!o.state.exited) out.push({ query: t.question, state: o.state });
        },
      });
    }
  }
  return out;
}

function stats(variant: string, ms: number[]): Row {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    variant,
    median_ms: round(at(0.5)),
    p95_ms: round(at(0.95)),
    mean_ms: round(s.reduce((a, b) => a + b, 0) / s.length),
  };
}

/**
 * Times every variant on the same states, interleaved step by step (the order rotates), so that
 * load from other processes falls on all variants alike.
 */
async function timeAll(
  samples: Sample[],
  fns: ((s: Sample, i: number) => Promise<void> | void)[],
): Promise<number[][]> {
  for (let i = 0; i < WARMUP; i++) for (const fn of fns) await fn(samples[i % samples.length] as Sample, i);
  const ms = fns.map(() => [] as number[]);
  for (let i = 0; i < STEPS; i++) {
    const s = samples[i % samples.length] as Sample;
    for (let k = 0; k < fns.length; k++) {
      const v = (i + k) % fns.length;
      const t0 = performance.now();
      await (fns[v] as (s: Sample, i: number) => Promise<void> | void)(s, i);
      (ms[v] as number[]).push(performance.now() - t0);
    }
  }
  return ms;
}

async function main(): Promise<void> {
  const cp = priorCheckpoint(pool);
  const net = await PolicyNetwork.cpu(cp);
  const samples = await collectStates(net);
  const cfg = cp.config;
  const enc = encoderConfig(cfg);
  const rng = createRng(1);
  const order = samples
    .map((s) => ({ s, k: rng.next() }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.s);

  const twoPass = await PolicyNetwork.cpu(cp, { edgeMode: 'two-pass' });
  const fusedNet = await PolicyNetwork.cpu(cp, { edgeMode: 'fused' });
  const stepWith = (n: PolicyNetwork) => async (s: Sample, i: number) => {
    await policyStep(n, encodeTask(s.query, cfg.hashDim), s.state, stepRng(i, 0));
  };
  const cached = new Map(order.map((s) => [s.query, encodeTask(s.query, cfg.hashDim)] as const));
  const stateBuf = new Float32Array(stateDim(enc));
  const agentBuf = new Float32Array(cfg.maxAgents * agentDim(enc));
  const linkBuf = graphInputs(enc, 1);
  const [def, fused, defCached, encoder] = (await timeAll(order, [
    stepWith(twoPass),
    stepWith(fusedNet),
    async (s, i) => {
      await policyStep(
        twoPass,
        cached.get(s.query) ?? encodeTask(s.query, cfg.hashDim),
        s.state,
        stepRng(i, 0),
      );
    },
    (s) => {
      const task = encodeTask(s.query, cfg.hashDim);
      encodeState(enc, task, s.state, stateBuf);
      encodeAgents(enc, s.state, agentBuf);
      encodeGraph(enc, s.state, linkBuf);
    },
  ])) as [number[], number[], number[], number[]];
  const rows = [
    stats(
      'step, two-pass edge head (CPU default): encode task + state, node head, sample, edge head for the role, sample links',
      def,
    ),
    stats('step, fused edge head (all roles in the node pass; WebGPU default)', fused),
    stats('step, two-pass, task encoding cached per construction (as construct does)', defCached),
    stats('encoder only (task n-grams + cues + state + agent features + link lists)', encoder),
  ];
  const [f, b, fc, e] = rows as [Row, Row, Row, Row];
  const { node, cpu, cores } = machine();
  const summary = {
    node,
    cpu,
    steps: STEPS,
    states: samples.length,
    config: {
      hashDim: cfg.hashDim,
      hidden: cfg.hidden,
      maxAgents: cfg.maxAgents,
      roles: cfg.roles.length,
      encoder: cfg.encoder,
      graphHidden: cfg.graphHidden,
      graphLayers: cfg.graphLayers,
    },
    goal_ms: GOAL_MS,
    load_average_1min: loadAverage()[0],
    cores,
    rows,
  };
  writeResults('policy', summary);
  const table = rows
    .map(
      (r) =>
        `| ${r.variant} | ${r.median_ms.toFixed(3)} | ${r.p95_ms.toFixed(3)} | ${r.mean_ms.toFixed(3)} |`,
    )
    .join('\n');
  writeDocSection(
    'Policy',
    `Measured with \`npm run bench:policy\` (bench/policy.bench.ts, Node ${process.version}, ${summary.cpu}); raw
rows in \`bench/results/policy.json\`. One MasHost construction step of the \`prior\` checkpoint on the
CPU backend (encoder version ${cfg.encoder}: hash dim ${cfg.hashDim}, hidden ${cfg.hidden}, ${cfg.maxAgents} agent slots, ${cfg.roles.length} roles,
${cfg.graphLayers} message-passing layers of ${cfg.graphHidden}), over
${STEPS} steps replayed round-robin from the ${samples.length} states that sampled constructions visit on
MASBench-style tasks of all five axes (values 2..12), after ${WARMUP} warm-up steps. The variants
run interleaved on the same states, and both step variants run the same network through the same
\`policyStep\`. 1-minute load average during the run: ${summary.load_average_1min} on ${summary.cores} cores (other
processes' load shows in the p95 column).

Median step (CPU default, two-pass edge head): **${f.median_ms.toFixed(3)} ms** (p95 ${f.p95_ms.toFixed(3)} ms; goal < ${GOAL_MS} ms).
Fused edge head (every role in the node pass, the WebGPU default): ${b.median_ms.toFixed(3)} ms median
(${(b.median_ms / f.median_ms).toFixed(2)}× the two-pass step): on the CPU the R× larger edge head costs more than a second pass,
on WebGPU a second pass costs a submission and a read-back. With the task encoding cached per
construction: ${fc.median_ms.toFixed(3)} ms; the encoder alone: ${e.median_ms.toFixed(3)} ms.

| variant | median ms | p95 ms | mean ms |
|---|---:|---:|---:|
${table}
`,
  );
  console.log(JSON.stringify(summary));
}

await main();
