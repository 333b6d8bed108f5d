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
  if (answer.length > MEMO_MAX_CHARS) return answerKeyUncached(answer);
  let key = keys.get(answer);
  if (key === undefined) {
    key = answerKeyUncached(answer);
    if (keys.size >= MEMO_LIMIT) keys.clear();
    keys.set(answer, key);
  }
  return key;
}

/**
 * Keys already read: the encoder reads the last few answers of a construction again at every
 * step (and `isRefusal` reads them too), so each answer is read once while it is in use.
 */
const keys = new Map<string, string>();
const MEMO_LIMIT = 4096;
const MEMO_MAX_CHARS = 8192;

/** `answerKey` without its memo (the reference its tests compare with). */
export function answerKeyUncached(answer: string): string {
  const boxes = scanBoxes(answer, AGREEMENT_BOXES);
  // The last line is read only when there is no box.
  const core =
    boxes.length > 0
      ? (boxes[boxes.length - 1] as string)
      : (answer.split('\n').findLast((l) => l.trim() !== '') ?? '');
  return core.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * True for a refusal: the answer, or its key (the final box or last line), starts with "REFUSE"
 * (any case), as the roles' refuse conditions ask ("REFUSE: <reason>").
 */
export function isRefusal(answer: string): boolean {
  return /^\s*refuse/i.test(answer) || answerKey(answer).startsWith('refuse');
}
