import { describe, expect, it } from 'vitest';
import { niceStep, timeTicks, timeUnit } from './ticks.ts';

const labels = (span: number, width: number): string[] => timeTicks(span, width).map((t) => t.label);

/** Whether `step` ms is 1, 2 or 5 × a power of ten, or a whole number of minutes from the minute list. */
function isRound(step: number): boolean {
  if (step >= 60_000) return [1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 720, 1440].includes(step / 60_000);
  if (step === 30_000) return true;
  const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6);
}

describe('timeTicks', () => {
  it('labels a 2 ms span without repeating a label', () => {
    // The old axis rounded 0.5 ms steps to whole ms: "0 ms, 1 ms, 1 ms, 2 ms".
    expect(labels(2, 600)).toEqual(['0 ms', '0.5 ms', '1 ms', '1.5 ms', '2 ms']);
  });

  it('picks the unit from the span: µs, ms, s, min', () => {
    expect(labels(0.4, 400)).toEqual(['0 µs', '100 µs', '200 µs', '300 µs', '400 µs']);
    expect(labels(900, 600)).toEqual(['0 ms', '200 ms', '400 ms', '600 ms', '800 ms']);
    expect(labels(5000, 500)).toEqual(['0 s', '1 s', '2 s', '3 s', '4 s', '5 s']);
    expect(labels(2500, 300)).toEqual(['0 s', '1 s', '2 s']);
    expect(labels(10 * 60_000, 450)).toEqual(['0 min', '2 min', '4 min', '6 min', '8 min', '10 min']);
    expect(labels(3 * 60_000, 900)).toEqual([
      '0 min',
      '0.5 min',
      '1 min',
      '1.5 min',
      '2 min',
      '2.5 min',
      '3 min',
    ]);
    expect(timeUnit(1999).name).toBe('ms');
    expect(timeUnit(2000).name).toBe('s');
  });

  it('steps 1-2-5 with about one tick per 90 px', () => {
    expect(niceStep(0.3)).toBeCloseTo(0.5);
    expect(niceStep(3)).toBe(5);
    expect(niceStep(100)).toBe(100);
    expect(niceStep(101)).toBe(200);
    expect(niceStep(7 * 60_000)).toBe(10 * 60_000);
    expect(niceStep(17 * 60_000)).toBe(30 * 60_000);
    expect(timeTicks(1000, 900)).toHaveLength(11);
  });

  it('never repeats a label and always steps evenly by a round step, at any span and width', () => {
    for (let e = -4; e <= 8; e += 0.13) {
      const span = 10 ** e;
      for (const width of [60, 180, 333, 600, 1000, 1700]) {
        const ticks = timeTicks(span, width);
        const seen = labels(span, width);
        expect(new Set(seen).size, `${span} ms over ${width} px: ${seen.join(', ')}`).toBe(seen.length);
        expect(ticks[0]?.t).toBe(0);
        expect(ticks.at(-1)?.t ?? 0).toBeLessThanOrEqual(span * (1 + 1e-9));
        if (ticks.length > 1) {
          const step = (ticks[1]?.t ?? 0) - (ticks[0]?.t ?? 0);
          expect(isRound(step), `step ${step} ms for ${span} ms`).toBe(true);
          // A tick per 90 px at most, and the next step down would have crowded them.
          expect(ticks.length).toBeLessThanOrEqual(Math.max(1, Math.floor(width / 90)) + 1);
        }
        for (const label of seen) expect(label).toMatch(/^\d+(\.\d{1,3})? (µs|ms|s|min)$/);
      }
    }
  });

  it('gives one tick at 0 for an empty or invalid span', () => {
    expect(timeTicks(0, 600)).toEqual([{ t: 0, label: '0 µs' }]);
    expect(timeTicks(Number.NaN, 600)).toHaveLength(1);
    expect(timeTicks(100, 0)).toHaveLength(1);
  });
});
