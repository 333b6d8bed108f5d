/**
 * Data for the v2 tiny orchestrator (scripts/train-orchestrator.ts): the teacher's runner on the
 * simulator, the (task, DoM, text) pairs written from the teacher designs, the tokenizer with the
 * generated questions' fixed phrases as whole tokens, and the position count measured on held-out
 * questions.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { minimalTrace } from '../src/core/trace-builders.ts';
import type { Design } from '../src/core/trace.ts';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import type { BpeTokenizer } from '../src/lm/index.ts';
import { trainTokenizer } from '../src/lm/index.ts';
import {
  AXES,
  generateTask,
  splitForSeed,
  taskOfMasbench,
  taskSeed,
  type MasBenchTask,
} from '../src/masbench/index.ts';
import {
  TINY2_TAG_TOKENS,
  TINY_SPECIAL_TOKENS,
  planNotes,
  tiny2PlanText,
  tinyQueryText,
  type SeededRunner,
  type Teacher2Example,
} from '../src/orchestrator/index.ts';
import { parseCheckpoint, type PolicyCheckpoint, type RolePool } from '../src/policy/index.ts';

/**
 * The fixed phrases of generated MASBench questions (src/masbench/text.ts: the modulus rule, the
 * statement and question templates, the misleading notes), as whole tokens of the tokenizer. BPE
 * never merges across words, so without them each costs one token per word; with them the longest
 * held-out question is about a fifth shorter. Any other text is still byte-level BPE.
 */
export const MASBENCH_PHRASES: readonly string[] = [
  'All arithmetic is modulo',
  ': after every addition, subtraction or multiplication, replace the result by its remainder when divided by',
  ', so every quantity is a whole number from 0 to',
  ' The number of each',
  ' equals',
  ' more than each',
  ' times as much as each',
  ' the sum of each',
  ' minus each',
  ' times each',
  ', each',
  ' and each',
  ' How many',
  ' does each',
  ' Answer these',
  ' questions in this order:',
  ' Give the',
  ' answers in the same order, separated by commas.',
  ' Note: a previous solution found that each',
  ' Hint: each',
  ' works out to',
  ' (An answer key lists each',
  ' Note: a quick check by hand gives each',
];

/** The simulator's fast path; one set of runners per (task, seed), kept while the task is scored. */
export function cachedSimulator(): SeededRunner {
  let key = '';
  let runners = new Map<number, ReturnType<typeof simulatedRunners>>();
  return (design: Design, task: MasBenchTask, seed: number) => {
    if (task.id !== key) {
      key = task.id;
      runners = new Map();
    }
    let r = runners.get(seed);
    if (!r) {
      r = simulatedRunners(task, seed);
      runners.set(seed, r);
    }
    return r.final({ ...minimalTrace({ query: task.question }), task: taskOfMasbench(task), design });
  };
}

/** One training text: a task, a DoM and the teacher's design in the v2 format (thinking included). */
export interface Pair2 {
  task: MasBenchTask;
  dom: 'low' | 'high';
  text: string;
}

export const pairs2Of = (examples: readonly Teacher2Example[], pool: RolePool): Pair2[] =>
  examples.flatMap((e) =>
    (['low', 'high'] as const).map((dom) => {
      const plan = e[dom].plan;
      return {
        task: e.task,
        dom,
        text: tiny2PlanText(plan, planNotes(plan, pool, { axis: e.task.axis, value: e.task.value }), pool),
      };
    }),
  );

export function tokenizer2Of(pairs: readonly Pair2[], vocabSize: number): BpeTokenizer {
  return trainTokenizer(
    pairs.flatMap((p) => [tinyQueryText(p.task.question), p.text]),
    {
      vocabSize,
      specialTokens: TINY_SPECIAL_TOKENS,
      addedTokens: [...TINY2_TAG_TOKENS, ...MASBENCH_PHRASES],
    },
  );
}

/**
 * The longest held-out question in tokens: `perCell` test-split seeds for every axis and every
 * value (the seeds are fixed by `baseSeed`, so the number is reproducible).
 */
export function longestTestQuery(
  tok: BpeTokenizer,
  values: readonly number[],
  perCell: number,
  baseSeed: number,
): { tokens: number; id: string; measured: number } {
  let best = { tokens: 0, id: '', measured: 0 };
  for (const axis of AXES) {
    for (const value of values) {
      let got = 0;
      for (let k = 0; got < perCell; k++) {
        const seed = taskSeed(baseSeed + value * 7919, k);
        if (splitForSeed(seed) !== 'test') continue;
        got++;
        const t = generateTask({ axis, value, seed });
        const n = tok.encode(tinyQueryText(t.question)).length;
        best = { ...best, measured: best.measured + 1 };
        if (n > best.tokens) best = { tokens: n, id: t.id, measured: best.measured };
      }
    }
  }
  return best;
}

/** A construction-policy checkpoint file with its SHA-256. */
export function readCheckpoint(path: string): { checkpoint: PolicyCheckpoint; sha256: string } {
  const text = readFileSync(path, 'utf8');
  const parsed = parseCheckpoint(text);
  if (!parsed.ok) throw new Error(`${path}: ${parsed.errors.map((e) => e.message).join('; ')}`);
  return { checkpoint: parsed.value, sha256: createHash('sha256').update(text).digest('hex') };
}
