/**
 * MASBench-style task generation: a shape from `shapes.ts`, worded with a theme from `vocab.ts`,
 * answers computed modulo 23. Everything is a function of `(axis, value, seed)` (and the
 * options), so a task can be regenerated from its record.
 */
import { createRng, hashString, mix32, type Rng } from '../core/rng.ts';
import {
  AXES,
  MASBENCH_FORMAT,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  type Axis,
  type MasBenchTask,
  type Split,
  type Subtask,
} from './schema.ts';
import { addDistractors, shapeFor } from './shapes.ts';
import { askFor, askMany, evaluate, misleadingNote, modulusRule, statement, type Formula } from './text.ts';
import { THEMES, quantitiesOf, type Quantity } from './vocab.ts';

/** iGSM's modulus: numbers stay in 0..22 however long the chain. */
export const DEFAULT_MODULUS = 23;
/** Unneeded sub-tasks stated in every question, as iGSM does; they change no axis value. */
export const DEFAULT_DISTRACTORS = 2;
/** One seed in this many is a test seed. */
export const TEST_SPLIT_EVERY = 5;

export interface GenerateOptions {
  axis: Axis;
  /** The axis value, MIN_AXIS_VALUE..MAX_AXIS_VALUE. */
  value: number;
  /** Unsigned 32-bit integer. */
  seed: number;
  /** Default DEFAULT_DISTRACTORS; 0..20. */
  distractors?: number;
  /** Default DEFAULT_MODULUS; a prime keeps `times` from collapsing values to 0. */
  modulus?: number;
}

/**
 * Train/test split, a function of the seed alone: `test` when `mix32(seed) % 5 === 0` (about one
 * seed in five), else `train`. Mixing first keeps the split independent of seed arithmetic such as
 * "seeds 0..99", and using only the seed means one seed is in the same split on every axis.
 */
export function splitForSeed(seed: number): Split {
  return mix32(seed) % TEST_SPLIT_EVERY === 0 ? 'test' : 'train';
}

/**
 * The seed of task `index` in a batch started from `base`:
 * `mix32((base + (index + 1) · 0x9E3779B9) mod 2^32)`. Multiplying by an odd constant and mixing
 * are both bijections, so the seeds of one batch never repeat.
 */
export function taskSeed(base: number, index: number): number {
  return mix32((base + Math.imul(index + 1, 0x9e3779b9)) >>> 0);
}

export function taskId(axis: Axis, value: number, seed: number): string {
  return `masbench-${axis}-${value}-${seed}`;
}

function validate(o: GenerateOptions): void {
  if (!AXES.includes(o.axis))
    throw new Error(`unknown axis "${String(o.axis)}"; use one of ${AXES.join(', ')}`);
  if (!Number.isInteger(o.value) || o.value < MIN_AXIS_VALUE || o.value > MAX_AXIS_VALUE) {
    throw new Error(`value must be an integer from ${MIN_AXIS_VALUE} to ${MAX_AXIS_VALUE}, got ${o.value}`);
  }
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xffffffff) {
    throw new Error(`seed must be an integer from 0 to 4294967295, got ${o.seed}`);
  }
  const d = o.distractors ?? DEFAULT_DISTRACTORS;
  if (!Number.isInteger(d) || d < 0 || d > 20)
    throw new Error(`distractors must be an integer from 0 to 20, got ${d}`);
  const m = o.modulus ?? DEFAULT_MODULUS;
  if (!Number.isInteger(m) || m < 5 || m > 1000)
    throw new Error(`modulus must be an integer from 5 to 1000, got ${m}`);
}

function chooseFormula(depCount: number, modulus: number, rng: Rng): Formula {
  if (depCount === 0) return { kind: 'const', value: rng.int(modulus) };
  if (depCount === 1) {
    const r = rng.int(5);
    if (r === 0) return { kind: 'copy' };
    if (r <= 2) return { kind: 'more', k: rng.range(1, modulus - 1) };
    return { kind: 'times', k: rng.range(2, modulus - 1) };
  }
  if (depCount === 2)
    return rng.pick<Formula>([{ kind: 'sum' }, { kind: 'difference' }, { kind: 'product' }]);
  return { kind: 'sum' };
}

/** One task. Throws on out-of-range options (the CLI checks them first and reports nicely). */
export function generateTask(options: GenerateOptions): MasBenchTask {
  validate(options);
  const { axis, value, seed } = options;
  const modulus = options.modulus ?? DEFAULT_MODULUS;
  // The axis and value go into the generator seed so that one seed gives unrelated tasks on different axes.
  const rng = createRng(mix32(hashString(`${axis}:${value}:${seed}`)));
  const shape = addDistractors(shapeFor(axis, value, rng), options.distractors ?? DEFAULT_DISTRACTORS, rng);

  const theme = rng.pick(THEMES);
  const quantities: Quantity[] = rng.shuffle(quantitiesOf(theme)).slice(0, shape.nodes.length);
  if (quantities.length < shape.nodes.length) throw new Error(`theme "${theme.name}" has too few quantities`);
  const ids = shape.nodes.map((_, i) => `s${i + 1}`);
  const noted = new Set(shape.noted);
  const rule = `Arithmetic is modulo ${modulus}.`;

  const answers: number[] = [];
  const subtasks: Subtask[] = [];
  const sentences: string[] = [];
  shape.nodes.forEach((node, i) => {
    const q = quantities[i] as Quantity;
    const depQs = node.deps.map((d) => quantities[d] as Quantity);
    const formula = chooseFormula(node.deps.length, modulus, rng);
    const answer = evaluate(
      formula,
      node.deps.map((d) => answers[d] as number),
      modulus,
    );
    answers.push(answer);
    const said = statement(q, formula, depQs);
    const subtask: Subtask = {
      id: ids[i] as string,
      question: `${said} ${rule} ${askFor(q)}`,
      deps: node.deps.map((d) => ids[d] as string),
      answer,
    };
    if (noted.has(i)) {
      // Any value but the true one: true + 1..modulus-1, wrapped.
      const wrong = (answer + rng.range(1, modulus - 1)) % modulus;
      subtask.note = misleadingNote(q, wrong, rng.int(4));
      sentences.push(`${said} ${subtask.note}`);
    } else {
      sentences.push(said);
    }
    subtasks.push(subtask);
  });

  const asked = shape.asks.map((i) => quantities[i] as Quantity);
  const question = [modulusRule(modulus), rng.shuffle(sentences).join(' '), askMany(asked)].join('\n\n');
  return {
    format: MASBENCH_FORMAT,
    id: taskId(axis, value, seed),
    question,
    subtasks,
    asks: shape.asks.map((i) => ids[i] as string),
    answers: shape.asks.map((i) => answers[i] as number),
    axis,
    value,
    seed,
    split: splitForSeed(seed),
    modulus,
  };
}

/** `count` tasks on one axis and value, task `i` from `taskSeed(baseSeed, i)`. */
export function generateTasks(
  options: Omit<GenerateOptions, 'seed'> & { baseSeed: number; count: number },
): MasBenchTask[] {
  const { baseSeed, count, ...rest } = options;
  if (!Number.isInteger(count) || count < 0)
    throw new Error(`count must be a non-negative integer, got ${count}`);
  return Array.from({ length: count }, (_, i) => generateTask({ ...rest, seed: taskSeed(baseSeed, i) }));
}
