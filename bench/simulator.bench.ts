/**
 * The simulator's standalone archive agents (docs/simulator.md, "Error model"): each agent type —
 * CoT, SC (5 samples), Reflexion, Debate (2 roles, 2 rounds), CEO — alone, given the whole task,
 * on 200 generated MASBench tasks per cell (task seeds 0..199, simulator seed 1), for the cells
 * depth 2, depth 6, depth 12, breadth 6 and robustness 4. Per cell: the fraction answered right
 * with its 95% Wilson interval; at depth 6 also the mean tokens (prompt + completion) per task.
 * The agent has an empty description, so it carries no role and runs the archive's plain prompts.
 *
 *   npm run bench:simulator
 *
 * Rows go to bench/results/simulator.json; the table to the "Simulator: standalone archive agents"
 * section of docs/benchmarks.md.
 */
import { execSync } from 'node:child_process';
import type { AgentType } from '../src/core/agents.ts';
import { minimalTrace } from '../src/core/trace-builders.ts';
import type { AgentParams, Design, Trace } from '../src/core/trace.ts';
import { runDesign } from '../src/executor/run.ts';
import { SIM_MODEL, simulatedBackend } from '../src/executor/sim/index.ts';
import { generateTask, type Axis, type MasBenchTask } from '../src/masbench/index.ts';
import { machine, writeDocSection, writeResults } from './report.ts';

const HEADING = 'Simulator: standalone archive agents';
const RESULTS = 'simulator';
/** Tasks per cell: task k of a cell is generateTask({ axis, value, seed: k }). */
const TASKS = 200;
/** The simulated backend's seed: every call's draws come from it (docs/simulator.md). */
const SIM_SEED = 1;
/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

interface Cell {
  axis: Axis;
  value: number;
}
const CELLS: readonly Cell[] = [
  { axis: 'depth', value: 2 },
  { axis: 'depth', value: 6 },
  { axis: 'depth', value: 12 },
  { axis: 'breadth', value: 6 },
  { axis: 'robustness', value: 4 },
];
/** The cell whose tokens per task are reported. */
const TOKEN_CELL: Cell = { axis: 'depth', value: 6 };

interface AgentSpec {
  name: string;
  type: AgentType;
  params: AgentParams;
}
/** The archive's defaults, stated so the table says what ran. */
const AGENTS: readonly AgentSpec[] = [
  { name: 'CoT', type: 'CoTAgent', params: {} },
  { name: 'SC (5)', type: 'SCAgent', params: { samples: 5 } },
  { name: 'Reflexion', type: 'ReflexionAgent', params: {} },
  {
    name: 'Debate (2 roles, 2 rounds)',
    type: 'DebateAgent',
    params: { debateRoles: ['Proponent', 'Skeptic'], maxRounds: 2 },
  },
  { name: 'CEO', type: 'CEOAgent', params: {} },
];

interface Row {
  agent: string;
  type: AgentType;
  axis: Axis;
  value: number;
  tasks: number;
  correct: number;
  /** correct / tasks. */
  fraction: number;
  /** 95% Wilson score interval of the fraction. */
  wilson95: [number, number];
  /** Mean prompt + completion tokens per task. */
  tokensPerTask: number;
  /** Mean LLM calls per task. */
  callsPerTask: number;
}

/** The 95% Wilson score interval for k successes in n trials. */
function wilson(k: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

function designOf(spec: AgentSpec): Design {
  return {
    dom: 'low',
    agents: [{ id: 'agent', type: spec.type, description: '', input: '', params: spec.params }],
    edges: [],
  };
}

function traceOf(task: MasBenchTask): Trace {
  const trace = minimalTrace({
    query: task.question,
    groundTruth: task.answers.join(', '),
    source: { kind: 'masbench', axis: task.axis, value: task.value, taskId: task.id },
  });
  return { ...trace, task: { ...trace.task, groundTruths: task.answers.map(String) } };
}

async function measure(spec: AgentSpec, cell: Cell): Promise<Row> {
  const design = designOf(spec);
  let correct = 0;
  let tokens = 0;
  let calls = 0;
  for (let seed = 0; seed < TASKS; seed++) {
    const task = generateTask({ axis: cell.axis, value: cell.value, seed });
    const trace = await runDesign({
      trace: traceOf(task),
      design,
      backend: simulatedBackend(task, SIM_SEED),
      startedAt: '2026-01-01T00:00:00.000Z',
    });
    if (trace.result.correct === true) correct += 1;
    tokens += trace.totals.promptTokens + trace.totals.completionTokens;
    calls += trace.totals.llmCalls;
  }
  return {
    agent: spec.name,
    type: spec.type,
    axis: cell.axis,
    value: cell.value,
    tasks: TASKS,
    correct,
    fraction: correct / TASKS,
    wilson95: wilson(correct, TASKS),
    tokensPerTask: tokens / TASKS,
    callsPerTask: calls / TASKS,
  };
}

function commitOf(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain --untracked-files=no', { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

const f2 = (x: number): string => x.toFixed(2);
const f3 = (x: number): string => x.toFixed(3);
const cellName = (c: Cell): string => `${c.axis} ${c.value}`;

/** The table as docs/simulator.md and docs/benchmarks.md show it: fraction [Wilson 95%] per cell. */
function table(rows: readonly Row[]): string {
  const head = `| agent | ${CELLS.map(cellName).join(' | ')} | tokens / task (${cellName(TOKEN_CELL)}) |`;
  const rule = `|---|${CELLS.map(() => '---:').join('|')}|---:|`;
  const lines = AGENTS.map((a) => {
    const of = (c: Cell): Row | undefined =>
      rows.find((r) => r.agent === a.name && r.axis === c.axis && r.value === c.value);
    const cells = CELLS.map((c) => {
      const r = of(c);
      return r ? `${f3(r.fraction)} [${f2(r.wilson95[0])}, ${f2(r.wilson95[1])}]` : '–';
    });
    const t = of(TOKEN_CELL);
    return `| ${a.name} | ${cells.join(' | ')} | ${t ? Math.round(t.tokensPerTask) : '–'} |`;
  });
  return [head, rule, ...lines].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const rows: Row[] = [];
  for (const spec of AGENTS) {
    for (const cell of CELLS) {
      const row = await measure(spec, cell);
      rows.push(row);
      console.log(
        `${spec.name.padEnd(28)} ${cellName(cell).padEnd(13)} ${f3(row.fraction)} [${f3(row.wilson95[0])}, ${f3(row.wilson95[1])}]  ${row.tokensPerTask.toFixed(1)} tokens/task`,
      );
    }
  }
  const date = new Date().toISOString().slice(0, 10);
  const commit = commitOf();
  writeResults(RESULTS, {
    date,
    commit,
    model: SIM_MODEL,
    simSeed: SIM_SEED,
    tasksPerCell: TASKS,
    taskSeeds: `0..${TASKS - 1}`,
    machine: machine(),
    seconds: (Date.now() - started) / 1000,
    rows,
  });
  writeDocSection(
    HEADING,
    [
      `\`npm run bench:simulator\` (bench/simulator.bench.ts), ${date}, commit ${commit}, ${SIM_MODEL}.`,
      `Each archive agent alone, with no role, given the whole task; ${TASKS} generated MASBench`,
      `tasks per cell (task seeds 0..${TASKS - 1}), simulator seed ${SIM_SEED}. Correct fraction with`,
      'its 95% Wilson interval; mean prompt + completion tokens per task at depth 6. Raw rows,',
      'with calls per task: bench/results/simulator.json. The same table is in docs/simulator.md.',
      '',
      table(rows),
      '',
    ].join('\n'),
  );
  console.log(`\n${table(rows)}\n\n${((Date.now() - started) / 1000).toFixed(1)} s`);
}

await main();
