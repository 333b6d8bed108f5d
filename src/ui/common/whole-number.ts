/**
 * The one rule every MASBench task cell (Build, Run, Orchestrate) applies to a number being typed:
 * the field keeps the text exactly as typed; the task changes only when that text is a whole number
 * in range; while it is not (empty, "1" on the way to "12", "3.", "-"), the task keeps its last
 * valid value and the cell says what it needs; leaving the field puts the task's value back in it.
 * Pure: docs/masbench.md, "Task cells".
 */

export type WholeNumber = { ok: true; value: number } | { ok: false; message: string };

/** `text` as a whole number in [lo, hi], or what the field needs, in words. */
export function wholeNumber(text: string, lo: number, hi: number, what: string): WholeNumber {
  const t = text.trim();
  const n = /^[+]?\d+$/.test(t) ? Number(t) : Number.NaN;
  if (Number.isSafeInteger(n) && n >= lo && n <= hi) return { ok: true, value: n };
  return { ok: false, message: `${what}: a whole number from ${lo} to ${hi}` };
}
