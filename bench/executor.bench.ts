/**
 * Executor benchmark: how close the parallel scheduler gets to the critical path. Runs a fan-out
 * design (1 → 6 parallel → 1) and a diamond (A → B, C → D) of CoT agents against the local
 * OpenAI-wire server with a fixed latency per call, once with the parallel executor and once with
 * the same agents one after another (concurrency 1). Writes bench/results/executor.json and the
 * "## Executor" section of docs/benchmarks.md (only that section; the rest of the file is kept).
 *
 *   npm run bench:executor
 */
import { minimalTrace } from '../src/core/trace-builders.ts';
import type { Design, Trace } from '../src/core/trace.ts';
import { createLlmClient } from '../src/executor/llm/index.ts';
import { remoteBackend } from '../src/executor/remote.ts';
import { runDesign } from '../src/executor/run.ts';
import { startOpenAIServer } from '../tests/server/openai-server.ts';
import { writeDocSection, writeResults } from './report.ts';

/** Server latency per call, ms. */
const LATENCY_MS = 150;
/** Runs per design and mode; the row reports the median. */
const REPEATS = 5;
/** Goal: parallel wall time ≤ this × the critical path. */
const GOAL_RATIO = 1.1;

const cot = (id: string, input = ''): Design['agents'][number] => ({
  id,
  type: 'CoTAgent',
  description: `agent ${id}`,
  input,
  params: {},
});

const workers = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
const DESIGNS: Record<string, Design> = {
  'fan-out 1→6→1': {
    dom: 'high',
    agents: [
      cot('root', 'Split the task into six parts.'),
      ...workers.map((w) => cot(w, `Work on part ${w} of the plan: \${root}`)),
      cot('sink', `Combine: ${workers.map((w) => `\${${w}}`).join(' ')}`),
    ],
    edges: [
      ...workers.map((w) => ({ from: 'root', to: w })),
      ...workers.map((w) => ({ from: w, to: 'sink' })),
    ],
  },
  'diamond A→B,C→D': {
    dom: 'high',
    agents: [
      cot('A', 'Plan.'),
      cot('B', 'First half of ${A}'),
      cot('C', 'Second half of ${A}'),
      cot('D', 'Join ${B} and ${C}'),
    ],
    edges: [
      { from: 'A', to: 'B' },
      { from: 'A', to: 'C' },
      { from: 'B', to: 'D' },
      { from: 'C', to: 'D' },
    ],
  },
};

interface Row {
  design: string;
  wall_ms: number;
  critical_path_ms: number;
  sequential_ms: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
const round = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const server = await startOpenAIServer({ faults: { latencyMs: LATENCY_MS } });
  const client = createLlmClient({ baseUrl: server.baseUrl });
  const backend = remoteBackend(client, 'bench-model', {}, { provider: 'local', baseUrl: server.baseUrl });
  const run = (design: Design, concurrency: number): Promise<Trace> =>
    runDesign({ trace: minimalTrace({ query: 'What is 2 + 3?' }), design, backend, concurrency });

  const rows: Row[] = [];
  try {
    // Warm-up: the first fetch in a process loads the HTTP stack, which is not the executor's time.
    await run(DESIGNS['diamond A→B,C→D'] as Design, 8);
    for (const [name, design] of Object.entries(DESIGNS)) {
      const wall: number[] = [];
      const critical: number[] = [];
      const sequential: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        const parallel = await run(design, 8);
        if (parallel.execution.status !== 'completed')
          throw new Error(`${name}: parallel run ${parallel.execution.status}`);
        wall.push(parallel.totals.wallMs);
        critical.push(parallel.totals.criticalPathMs);
        const serial = await run(design, 1);
        sequential.push(serial.totals.wallMs);
      }
      rows.push({
        design: name,
        wall_ms: round(median(wall)),
        critical_path_ms: round(median(critical)),
        sequential_ms: round(median(sequential)),
      });
    }
  } finally {
    await server.close();
  }

  writeResults('executor', rows);
  const table = [
    '| design | wall ms | critical path ms | wall / critical | sequential ms | speed-up |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.design} | ${r.wall_ms} | ${r.critical_path_ms} | ${(r.wall_ms / r.critical_path_ms).toFixed(3)} | ${r.sequential_ms} | ${(r.sequential_ms / r.wall_ms).toFixed(2)}× |`,
    ),
  ].join('\n');
  const worst = Math.max(...rows.map((r) => r.wall_ms / r.critical_path_ms));
  writeDocSection(
    'Executor',
    `Measured with \`npm run bench:executor\` (bench/executor.bench.ts, Node ${process.version}); raw rows in
\`bench/results/executor.json\`. CoT agents call the local OpenAI-wire server
(tests/server/openai-server.ts) with ${LATENCY_MS} ms latency per call, over real HTTP. "wall" is
the parallel executor's run (up to 8 agents at once) from the first event to the last; "critical
path" is the longest path through the design with each agent weighted by its own start → end time,
from the same run's totals; "sequential" runs the same agents one after another (concurrency 1).
Medians of ${REPEATS} runs each.

Worst wall / critical path: **${worst.toFixed(3)}** (goal ≤ ${GOAL_RATIO}).

${table}
`,
  );
  console.log(table);
  console.log(JSON.stringify({ worstRatio: worst, goal: GOAL_RATIO, met: worst <= GOAL_RATIO }));
}

void main();
