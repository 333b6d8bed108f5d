/**
 * Whether two runs gave the same answer, and whether an answer is a refusal: what the
 * construction policy's state features read from intermediate answers (src/policy/encoder.ts,
 * encoder version 2 on). Checkpoints were trained on features computed exactly this way, so these
 * readings are frozen: a box here is only a closed `\boxed{…}` (empty boxes count, `\fbox` and
 * TeX's brace-less `\boxed 5` do not), unlike `lastBoxed`, which the graders use.
 */
import { scanBoxes } from './boxed.ts';

const AGREEMENT_BOXES = { commands: ['\\boxed'], bareTokens: false } as const;

/**
 * An answer reduced to what two runs must share to count as the same answer: the content of the
 * final `\boxed{…}` when there is one, else the last non-empty line; trimmed, lower-cased, and
 * whitespace runs collapsed to one space. Empty for an answer with no text.
 */
export function answerKey(answer: string): string {
  const boxes = scanBoxes(answer, AGREEMENT_BOXES);
  const lines = answer.split('\n').filter((l) => l.trim() !== '');
  const core = boxes[boxes.length - 1] ?? lines[lines.length - 1] ?? '';
  return core.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * True for a refusal: the answer, or its key (the final box or last line), starts with "REFUSE"
 * (any case), as the roles' refuse conditions ask ("REFUSE: <reason>").
 */
export function isRefusal(answer: string): boolean {
  return /^\s*refuse/i.test(answer) || answerKey(answer).startsWith('refuse');
}
