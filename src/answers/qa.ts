/**
 * SQuAD-style scoring for short text answers: exact match after normalisation, and token F1.
 * The normalisation is the official SQuAD one (lowercase, drop punctuation, drop the articles
 * a/an/the, collapse whitespace). Non-ASCII punctuation, which SQuAD keeps, becomes a space here, so
 * that curly quotes do not break a match and a dash between two words still separates them.
 */

const ASCII_PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

export function normalizeQaAnswer(s: string): string {
  return s
    .toLowerCase()
    .replace(ASCII_PUNCTUATION, '')
    .replace(/\p{P}/gu, ' ')
    .replace(/\b(?:a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter((t) => t !== '')
    .join(' ');
}

export function exactMatch(prediction: string, gold: string): boolean {
  return normalizeQaAnswer(prediction) === normalizeQaAnswer(gold);
}

/**
 * Harmonic mean of token precision and recall, counting repeated tokens as often as they occur in
 * both. When either side normalises to nothing, the score is 1 if both do and 0 otherwise.
 */
export function tokenF1(prediction: string, gold: string): number {
  const p = normalizeQaAnswer(prediction).split(' ').filter(Boolean);
  const g = normalizeQaAnswer(gold).split(' ').filter(Boolean);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      common++;
      counts.set(t, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
}
