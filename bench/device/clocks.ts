/**
 * The GPU's clocks while each part of the device benchmark ran. run.sh samples the card with
 * `nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv,noheader -lms 200`
 * into a file while bench.mjs runs; bench.mjs notes when each of its result keys was written
 * (`section_times`) and, at the end, reads that file and reports per section the SM clock and the
 * utilization the samples saw (`clocks` in baton.json). A small policy update is a burst of short
 * dispatches, and an NVIDIA card's SM clock can stay far below its maximum through such bursts,
 * so a row's times are read with the clock it ran at. Pure: parses text, measures nothing.
 */

/** One nvidia-smi sample: when (ms since the epoch), the SM clock (MHz) and the utilization (%). */
export interface ClockSample {
  t: number;
  smMhz: number;
  utilPct: number | null;
}

/**
 * Parses `nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu --format=csv,noheader` lines
 * ("2026/11/28 14:22:22.621, 1980 MHz, 35 %"). nvidia-smi prints the machine's local time without
 * a zone: `offsetMin` is that zone's `Date.getTimezoneOffset()` (minutes behind UTC). Lines that
 * do not parse (a header, a half-written last line, "[N/A]") are skipped.
 */
export function parseClockLog(text: string, offsetMin = 0): ClockSample[] {
  const out: ClockSample[] = [];
  for (const line of text.split('\n')) {
    const m =
      /^\s*(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?\s*,\s*(\d+(?:\.\d+)?)\s*MHz\s*(?:,\s*(\d+(?:\.\d+)?)\s*%)?/.exec(
        line,
      );
    if (!m) continue;
    const n = (i: number): number => Number(m[i]);
    const ms = m[7] ? Number(m[7].padEnd(3, '0')) : 0;
    const t = Date.UTC(n(1), n(2) - 1, n(3), n(4), n(5), n(6), ms) + offsetMin * 60_000;
    if (!Number.isFinite(t)) continue;
    out.push({ t, smMhz: n(8), utilPct: m[9] !== undefined ? n(9) : null });
  }
  return out;
}

/** A section of the run: its name (the result key) and when it began and ended (ms since the epoch). */
export interface Section {
  name: string;
  start: number;
  end: number;
}

/** Sections from the times each result key was written: a section runs from the last write to its own. */
export function sectionsOf(started: number, marks: readonly [string, number][]): Section[] {
  const out: Section[] = [];
  let from = started;
  for (const [name, at] of marks) {
    out.push({ name, start: from, end: at });
    from = at;
  }
  return out;
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

/** Per section with samples: how many, and the SM clock's median, minimum and maximum, and the median utilization. */
export function clocksBySection(
  samples: readonly ClockSample[],
  sections: readonly Section[],
): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const s of sections) {
    const inside = samples.filter((x) => x.t >= s.start && x.t <= s.end);
    if (inside.length === 0) continue;
    const sm = inside.map((x) => x.smMhz);
    const util = inside.flatMap((x) => (x.utilPct === null ? [] : [x.utilPct]));
    rows.push({
      section: s.name,
      seconds: Math.round((s.end - s.start) / 100) / 10,
      samples: inside.length,
      sm_mhz_median: median(sm),
      sm_mhz_min: Math.min(...sm),
      sm_mhz_max: Math.max(...sm),
      util_pct_median: median(util),
    });
  }
  return rows;
}
