/**
 * Wording of formulas, questions and misleading notes, in the iGSM register
 * ("The number of each Heron's Liver equals 5 more than each Otter's Heart.").
 */
import { nameOf, type Quantity } from './vocab.ts';

/** How a quantity is defined from its deps (in deps order); arithmetic is modulo the task's modulus. */
export type Formula =
  | { kind: 'const'; value: number }
  | { kind: 'copy' }
  | { kind: 'more'; k: number }
  | { kind: 'times'; k: number }
  | { kind: 'sum' }
  | { kind: 'difference' }
  | { kind: 'product' };

/** The value of a formula given its deps' values, reduced into [0, modulus). */
export function evaluate(formula: Formula, deps: readonly number[], modulus: number): number {
  const mod = (x: number): number => ((x % modulus) + modulus) % modulus;
  const [a = 0, b = 0] = deps;
  switch (formula.kind) {
    case 'const':
      return mod(formula.value);
    case 'copy':
      return mod(a);
    case 'more':
      return mod(a + formula.k);
    case 'times':
      return mod(a * formula.k);
    case 'sum':
      return mod(deps.reduce((s, x) => s + x, 0));
    case 'difference':
      return mod(a - b);
    case 'product':
      return mod(a * b);
  }
}

function list(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The sentence that defines a quantity. */
export function statement(q: Quantity, formula: Formula, deps: readonly Quantity[]): string {
  const ds = deps.map(nameOf);
  const [a = '', b = ''] = ds;
  const head = `The number of ${nameOf(q)} equals`;
  switch (formula.kind) {
    case 'const':
      return `${head} ${formula.value}.`;
    case 'copy':
      return `${head} ${a}.`;
    case 'more':
      return `${head} ${formula.k} more than ${a}.`;
    case 'times':
      return `${head} ${formula.k} times as much as ${a}.`;
    case 'sum':
      return `${head} the sum of ${list(ds)}.`;
    case 'difference':
      return `${head} ${a} minus ${b}.`;
    case 'product':
      return `${head} ${a} times ${b}.`;
  }
}

export function askFor(q: Quantity): string {
  return `How many ${q.item} does each ${q.owner} have?`;
}

export function modulusRule(modulus: number): string {
  return (
    `All arithmetic is modulo ${modulus}: after every addition, subtraction or multiplication, ` +
    `replace the result by its remainder when divided by ${modulus}, so every quantity is a whole ` +
    `number from 0 to ${modulus - 1}.`
  );
}

/** The question for several asks, numbered in the order the answers must be given. */
export function askMany(qs: readonly Quantity[]): string {
  if (qs.length === 1 && qs[0]) return askFor(qs[0]);
  const numbered = qs.map((q, i) => `(${i + 1}) ${askFor(q)}`).join(' ');
  return (
    `Answer these ${qs.length} questions in this order: ${numbered} ` +
    `Give the ${qs.length} answers in the same order, separated by commas.`
  );
}

const NOTE_TEMPLATES: readonly ((name: string, wrong: number) => string)[] = [
  (n, w) => `Note: a previous solution found that ${n} equals ${w}.`,
  (n, w) => `Hint: ${n} works out to ${w}.`,
  (n, w) => `(An answer key lists ${n} as ${w}.)`,
  (n, w) => `Note: a quick check by hand gives ${n} = ${w}.`,
];

/** A misleading note claiming `wrong` as the value of `q`; `template` is taken modulo the template count. */
export function misleadingNote(q: Quantity, wrong: number, template: number): string {
  const make = NOTE_TEMPLATES[template % NOTE_TEMPLATES.length] ?? NOTE_TEMPLATES[0];
  if (!make) throw new Error('no note templates');
  return make(nameOf(q), wrong);
}

export const NOTE_TEMPLATE_COUNT = NOTE_TEMPLATES.length;
