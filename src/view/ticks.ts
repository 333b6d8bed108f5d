/**
 * Axis ticks for a time span in milliseconds: round steps (1, 2 or 5 × a power of ten; past a
 * minute, 1, 2, 5, 10, 15 or 30 minutes and on; half a minute at least on a minute axis), about
 * one tick per `spacing` px, labelled in one
 * unit chosen from the span (µs below 1 ms, ms below 2 s, s below 2 min, min above) with just
 * enough decimals for the step, so no two labels are alike. Pure.
 */

export interface Tick {
  /** Milliseconds from the start of the span. */
  t: number;
  label: string;
}

/** At most this many ticks, whatever the width. */
const MAX_TICKS = 200;

const MINUTE = 60_000;

/** Minute steps past one minute: the 1-2-5 sequence gives 20 and 50 min, which read badly on a clock. */
const MINUTE_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 720, 1440];

/** The smallest round step of at least `raw` ms. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  if (raw > MINUTE) {
    const m = MINUTE_STEPS.find((s) => s * MINUTE >= raw);
    if (m !== undefined) return m * MINUTE;
    return Math.ceil(raw / (1440 * MINUTE)) * 1440 * MINUTE;
  }
  const pow = 10 ** Math.floor(Math.log10(raw));
  // Floating point: 0.3 / 0.1 is 2.9999999999999996, so compare with a little room.
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw * (1 - 1e-9)) ?? 10 * pow;
  // Between 50 s and a minute: a minute, not 100 s.
  return Math.min(step, MINUTE);
}

interface Unit {
  name: string;
  ms: number;
}

/** The unit the whole axis is labelled in, from the span. */
export function timeUnit(span: number): Unit {
  if (span < 1) return { name: 'µs', ms: 1e-3 };
  if (span < 2000) return { name: 'ms', ms: 1 };
  if (span < 2 * MINUTE) return { name: 's', ms: 1000 };
  return { name: 'min', ms: MINUTE };
}

/** Decimals that show every multiple of `step` (in the unit) exactly: 0.5 → 1, 0.25 → 2, 20 → 0. */
function decimalsFor(step: number): number {
  for (let d = 0; d < 9; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 9;
}

/** `value` ms written in `unit` with `decimals` decimals, trailing zeros dropped ("1.5 s", "2 s"). */
function format(value: number, unit: Unit, decimals: number): string {
  const n = Number((value / unit.ms).toFixed(decimals));
  return `${n.toLocaleString('en', { maximumFractionDigits: decimals, useGrouping: false })} ${unit.name}`;
}

/**
 * Ticks over [0, span] ms for an axis `width` px wide, about one per `spacing` px. A span of 0 (or
 * less, or not a number) gives a single tick at 0.
 */
export function timeTicks(span: number, width: number, spacing = 90): Tick[] {
  const unit = timeUnit(span);
  if (!(span > 0) || !Number.isFinite(span) || !(width > 0)) return [{ t: 0, label: `0 ${unit.name}` }];
  const wanted = Math.max(1, Math.min(MAX_TICKS, Math.floor(width / spacing)));
  let step = niceStep(span / wanted);
  // On a minute axis, steps under a minute are half a minute ("0.5 min"), never 20 s ("0.33 min").
  if (unit.ms === MINUTE && step < MINUTE) step = step <= MINUTE / 2 ? MINUTE / 2 : MINUTE;
  const decimals = decimalsFor(step / unit.ms);
  const out: Tick[] = [];
  for (let i = 0; out.length < MAX_TICKS; i++) {
    const t = i * step;
    if (t > span * (1 + 1e-9)) break;
    out.push({ t, label: format(t, unit, decimals) });
  }
  return out;
}
