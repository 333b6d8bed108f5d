/** Helpers the setup panel's fieldsets share. */

/** A number input's value as an integer, or `fallback` while it is not a number. */
export const toInt = (v: string, fallback: number): number => {
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
};
