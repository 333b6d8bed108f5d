/**
 * The device benchmark's clock log (bench/device/clocks.ts): nvidia-smi's CSV lines, read in the
 * machine's zone, and the SM clock per section of the run.
 */
import { describe, expect, it } from 'vitest';
import { clocksBySection, parseClockLog, sectionsOf } from '../../bench/device/clocks.ts';

const LOG = [
  '2026/11/28 14:22:22.621, 345 MHz, 0 %',
  '2026/11/28 14:22:22.821, 1980 MHz, 35 %',
  'timestamp, clocks.current.sm [MHz], utilization.gpu [%]',
  '2026/11/28 14:22:23.021, 1410 MHz, [N/A]',
  '2026/11/28 14:22:23.2', // cut off mid-line when the run ended
  '2026/11/28 14:22:23.421, 600 MHz, 5 %',
].join('\n');

describe('the device benchmark’s clock log', () => {
  it('parses samples in UTC and in a zone behind it, skipping what is not a sample', () => {
    const utc = parseClockLog(LOG);
    expect(utc.map((s) => s.smMhz)).toEqual([345, 1980, 1410, 600]);
    expect(utc.map((s) => s.utilPct)).toEqual([0, 35, null, 5]);
    expect(new Date(utc[0]?.t ?? 0).toISOString()).toBe('2026-11-28T14:22:22.621Z');
    // A machine 5 hours behind UTC (getTimezoneOffset 300) printed 14:22 local: 19:22 UTC.
    expect(new Date(parseClockLog(LOG, 300)[0]?.t ?? 0).toISOString()).toBe('2026-11-28T19:22:22.621Z');
  });

  it('reports each section’s clock from the samples inside it', () => {
    const at = (s: string): number => Date.parse(`2026-11-28T14:22:${s}Z`);
    const sections = sectionsOf(at('22.500'), [
      ['trainer', at('23.100')],
      ['gpt', at('23.300')],
      ['iterations', at('24.000')],
    ]);
    expect(sections.map((s) => s.name)).toEqual(['trainer', 'gpt', 'iterations']);
    expect(sections[1]).toEqual({ name: 'gpt', start: at('23.100'), end: at('23.300') });
    const rows = clocksBySection(parseClockLog(LOG), sections);
    // No sample fell inside `gpt`: it has no row.
    expect(rows).toEqual([
      {
        section: 'trainer',
        seconds: 0.6,
        samples: 3,
        sm_mhz_median: 1410,
        sm_mhz_min: 345,
        sm_mhz_max: 1980,
        util_pct_median: 35,
      },
      {
        section: 'iterations',
        seconds: 0.7,
        samples: 1,
        sm_mhz_median: 600,
        sm_mhz_min: 600,
        sm_mhz_max: 600,
        util_pct_median: 5,
      },
    ]);
  });
});
