/**
 * What fixed designs score on the simulator, per MASBench axis: the ceiling a construction policy
 * can reach by picking one of them per task shape, without any training. Each design is built with
 * the construction actions a policy would take (ADD role with links, then EXIT, so the summariser
 * is added as in every constructed design) and run by the simulated sub-agents (a simulation, not
 * LLM calls) on the same held-out tasks (test-split seeds, values 2–6 in turn), with the same
 * simulator seed per task for every design, so the designs are compared on equal terms.
 *
 *   npx tsx scripts/fixed-designs.ts [--n 60] [--seed 7]
 *
 * Prints a markdown table: accuracy with its 95% Wilson interval, and mean tokens per task. The
 * designs are `FIXED_PROGRAMS` (src/orchestrator/teacher2.ts), which the v2 teacher also weighs.
 */
import { mix32 } from '../src/core/rng.ts';
import { minimalTrace } from '../src/core/trace-builders.ts';
import { wilson } from '../src/core/stats.ts';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import { generateTask, splitForSeed, taskSeed, taskOfMasbench, type Axis } from '../src/masbench/index.ts';
import { FIXED_PROGRAMS, programDesign, type Program } from '../src/orchestrator/index.ts';
import { DEFAULT_POOL } from '../src/policy/index.ts';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const N = arg('n', 60);
const SEED = arg('seed', 7);

const DESIGNS = FIXED_PROGRAMS;
const AXES: readonly Axis[] = ['depth', 'parallel', 'robustness', 'breadth'];
const designOf = (program: Program) => programDesign(program, DEFAULT_POOL);

const lines = [`| design | ${AXES.join(' | ')} |`, `|---|${AXES.map(() => '---').join('|')}|`];
const tasks = new Map(
  AXES.map((axis) => {
    const out = [];
    for (let k = 0; out.length < N; k++) {
      const seed = taskSeed(SEED, k);
      if (splitForSeed(seed) !== 'test') continue;
      out.push(generateTask({ axis, value: 2 + (out.length % 5), seed }));
    }
    return [axis, out] as const;
  }),
);
for (const [name, program] of Object.entries(DESIGNS)) {
  const design = designOf(program);
  const cells: string[] = [];
  for (const axis of AXES) {
    let right = 0;
    let tokens = 0;
    for (const [i, task] of (tasks.get(axis) ?? []).entries()) {
      const t = taskOfMasbench(task);
      const trace = { ...minimalTrace({ query: t.query, groundTruth: t.groundTruth }), task: t, design };
      const r = await simulatedRunners(task, mix32(i)).final(trace);
      if (r.correct === true) right++;
      tokens += r.tokens;
    }
    const [lo, hi] = wilson(right, N);
    cells.push(`${(right / N).toFixed(2)} [${lo.toFixed(2)}, ${hi.toFixed(2)}] · ${(tokens / N).toFixed(0)}`);
  }
  lines.push(`| ${name} | ${cells.join(' | ')} |`);
}
console.log(`${N} held-out tasks per axis (seed ${SEED}); accuracy [95% Wilson] · tokens per task`);
console.log(lines.join('\n'));
