/**
 * One entry point for grading a model's output against a ground truth. Rules per mode are in
 * docs/masbench.md ("Answer checking").
 */
import { lastBoxed } from './boxed.ts';
import { extractAnswerPhrase, extractChoice, extractFinalNumber, normalizeChoice } from './extract.ts';
import { isNumericAnswer, mathEqual } from './math.ts';
import { extractMultiAnswers } from './multi.ts';
import { exactMatch, tokenF1 } from './qa.ts';

/**
 * - `auto`: several ground truths → `multi`; a single letter → `choice`; a number or LaTeX →
 *   `math`; other text → `exact`.
 * - `math`: one answer, numeric or LaTeX equivalence.
 * - `multi`: every ground truth must match, in the order given.
 * - `choice`: a multiple-choice letter.
 * - `exact` / `f1`: SQuAD exact match / token F1; several ground truths are alternatives.
 */
export type CheckMode = 'auto' | 'math' | 'multi' | 'choice' | 'exact' | 'f1';

export type GroundTruth = string | number | readonly (string | number)[];

export interface CheckOptions {
  /** In `f1` mode the answer counts as correct when F1 ≥ this (default 0.5). */
  f1Threshold?: number;
  /** Letters accepted in `choice` mode (default `ABCDEFGHIJ`). */
  choiceLetters?: string;
}

export interface CheckResult {
  correct: boolean;
  /** The answer as read from the output (several answers joined by `, `), or null if none was found. */
  extracted: string | null;
  /** `<where it was found>/<how it was compared>`, e.g. `boxed/math`, `last-numbers/multi`, or `none`. */
  method: string;
  /** 1 or 0, except: token F1 in `f1` mode, the fraction of matched answers in `multi` mode. */
  score: number;
}

export const DEFAULT_F1_THRESHOLD = 0.5;

const NONE: CheckResult = { correct: false, extracted: null, method: 'none', score: 0 };

function truths(groundTruth: GroundTruth): string[] {
  return (
    typeof groundTruth === 'string' || typeof groundTruth === 'number' ? [groundTruth] : groundTruth
  ).map((g) => String(g).trim());
}

function isChoiceTruth(g: string): boolean {
  return /^\(?[A-J]\)?$/.test(g);
}

/** Which concrete mode `auto` stands for, given the ground truths. */
export function resolveMode(groundTruth: GroundTruth, mode: CheckMode = 'auto'): Exclude<CheckMode, 'auto'> {
  if (mode !== 'auto') return mode;
  const gts = truths(groundTruth);
  if (gts.length > 1) return 'multi';
  const g = gts[0] ?? '';
  if (isChoiceTruth(g)) return 'choice';
  if (isNumericAnswer(g) || g.includes('\\')) return 'math';
  return 'exact';
}

/** Either notion of "the same answer": mathematical equivalence or SQuAD exact match. */
function sameAnswer(answer: string, truth: string): boolean {
  return mathEqual(answer, truth) || exactMatch(answer, truth);
}

/** The single final answer: last box, else an "answer is" phrase, else (for math) the last number. */
function extractSingle(output: string, allowLastNumber: boolean): { text: string; how: string } | null {
  const boxed = lastBoxed(output);
  if (boxed !== null) return { text: boxed, how: 'boxed' };
  const phrase = extractAnswerPhrase(output);
  // For math, "the answer is not obvious" in the reasoning must not hide a later number.
  if (phrase !== null && (!allowLastNumber || /[\d\\]/.test(phrase))) return { text: phrase, how: 'phrase' };
  if (allowLastNumber) {
    const n = extractFinalNumber(output);
    if (n !== null) return { text: n, how: 'last-number' };
    return null;
  }
  const whole = output.trim();
  return whole === '' ? null : { text: whole, how: 'text' };
}

export function checkAnswer(
  output: string,
  groundTruth: GroundTruth,
  mode: CheckMode = 'auto',
  options: CheckOptions = {},
): CheckResult {
  const gts = truths(groundTruth);
  if (gts.length === 0) throw new Error('checkAnswer needs at least one ground truth');
  const concrete = resolveMode(groundTruth, mode);
  switch (concrete) {
    case 'multi': {
      const found = extractMultiAnswers(output, gts.length);
      if (!found) return NONE;
      const matched = found.answers.filter((a, i) => sameAnswer(a, gts[i] ?? '')).length;
      return {
        correct: matched === gts.length,
        extracted: found.answers.join(', '),
        method: `${found.how}/multi`,
        score: matched / gts.length,
      };
    }
    case 'choice': {
      const letters = options.choiceLetters;
      const got = extractChoice(output, letters);
      if (got === null) return NONE;
      const ok = gts.some((g) => normalizeChoice(g, letters) === got);
      return { correct: ok, extracted: got, method: 'choice/choice', score: ok ? 1 : 0 };
    }
    case 'math': {
      const got = extractSingle(output, true);
      if (!got) return NONE;
      const ok = gts.some((g) => mathEqual(got.text, g));
      return { correct: ok, extracted: got.text, method: `${got.how}/math`, score: ok ? 1 : 0 };
    }
    case 'exact': {
      const got = extractSingle(output, false);
      if (!got) return NONE;
      const ok = gts.some((g) => exactMatch(got.text, g));
      return { correct: ok, extracted: got.text, method: `${got.how}/exact`, score: ok ? 1 : 0 };
    }
    case 'f1': {
      const got = extractSingle(output, false);
      if (!got) return NONE;
      const score = Math.max(...gts.map((g) => tokenF1(got.text, g)));
      const threshold = options.f1Threshold ?? DEFAULT_F1_THRESHOLD;
      return { correct: score >= threshold, extracted: got.text, method: `${got.how}/f1`, score };
    }
  }
}
