/**
 * Share-link size and speed: Baton links (deflate-raw + preset dictionary + base64url) against
 * lz-string's `compressToEncodedURIComponent` (what TypeScript Playground links use) on the same
 * JSON, in the same run. Writes bench/results/share.json and the "Share links" section of
 * docs/benchmarks.md (only that section; the rest of the file is left as it is).
 *
 *   npm run bench:share
 *
 * Traces: the bundled examples (public/examples), sample traces built here, and the MAS-Orchestra
 * case samples in ../shared/data imported with src/importers when that folder is present.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import lz from 'lz-string';
import { parseTraceJson } from '../src/core/parse-trace.ts';
import { TraceSchema, type Trace } from '../src/core/trace.ts';
import { importText } from '../src/importers/index.ts';
import { decodeTraceLink, encodeTraceLink, smallestLink } from '../src/share/index.ts';
import { sampleTrace, sampleTraces } from '../tests/support/sample-traces.ts';
import { writeDocSection, writeResults } from './report.ts';

const ROOT = join(import.meta.dirname, '..');
const EXAMPLES = join(ROOT, 'public/examples');
const SHARED = join(ROOT, '../shared/data/mas-orchestra-cases');

interface Source {
  name: string;
  group: 'example' | 'sample' | 'imported';
  trace: Trace;
}

function sources(): Source[] {
  const out: Source[] = [];
  if (existsSync(EXAMPLES)) {
    for (const f of readdirSync(EXAMPLES).sort()) {
      if (!f.endsWith('.json') || f === 'index.json') continue;
      const r = parseTraceJson(readFileSync(join(EXAMPLES, f), 'utf8'));
      if (r.ok) out.push({ name: `examples/${f}`, group: 'example', trace: r.value });
    }
  }
  for (const t of sampleTraces()) out.push({ name: `sample/${t.id}`, group: 'sample', trace: t });
  out.push({
    name: 'sample/long-debate',
    group: 'sample',
    trace: sampleTrace({ seed: 900, shape: 'debate', steps: 30 }),
  });
  if (existsSync(SHARED)) {
    for (const f of readdirSync(SHARED).sort()) {
      if (!f.endsWith('.json')) continue;
      const outcome = importText(readFileSync(join(SHARED, f), 'utf8'), f);
      if (!outcome.ok) continue;
      const traces = outcome.items.flatMap((i) => (i.result.ok ? [i.result.value] : []));
      // The first three of each file keep the table readable; with and without a diagram.
      for (const [i, t] of traces.slice(0, 3).entries()) {
        out.push({
          name: `mas-orchestra/${f.replace(/\.sample\.json$/, '')}#${i}`,
          group: 'imported',
          trace: t,
        });
      }
    }
  }
  return out;
}

/** Median wall time of `fn` in ms over enough runs to take ~100 ms (at least 3). */
function time(fn: () => unknown): number {
  const samples: number[] = [];
  const deadline = performance.now() + 100;
  while (samples.length < 3 || (performance.now() < deadline && samples.length < 50)) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function main(): void {
  const all = sources();
  // Warm the JIT on every trace first, so the first rows are not charged for compilation.
  for (let i = 0; i < 3; i++) {
    for (const { trace } of all) {
      const link = encodeTraceLink(trace);
      decodeTraceLink(link.fragment);
      lz.decompressFromEncodedURIComponent(lz.compressToEncodedURIComponent(JSON.stringify(trace)));
    }
  }
  const rows = all.map(({ name, group, trace }) => {
    // The same canonical JSON both codecs compress (the link's own serialisation).
    const json = JSON.stringify(TraceSchema.parse(trace));
    const link = encodeTraceLink(trace);
    const lzText = lz.compressToEncodedURIComponent(json);
    const back = decodeTraceLink(link.fragment);
    if (!back.ok || JSON.stringify(back.value) !== json) throw new Error(`${name}: link does not round-trip`);
    // lz-string links carry "#code/" in the Playground; count only the payload, as for Baton.
    return {
      trace: name,
      group,
      has_diagram: trace.diagram !== undefined,
      raw_json_chars: json.length,
      baton_chars: link.chars,
      lzstring_chars: lzText.length,
      ratio_raw: round(link.chars / json.length),
      ratio_lz: round(link.chars / lzText.length),
      fit_chars: smallestLink(trace).chars,
      encode_ms: round(
        time(() => encodeTraceLink(trace)),
        2,
      ),
      decode_ms: round(
        time(() => decodeTraceLink(link.fragment)),
        2,
      ),
      lz_encode_ms: round(
        time(() => lz.compressToEncodedURIComponent(json)),
        2,
      ),
      lz_decode_ms: round(
        time(() => lz.decompressFromEncodedURIComponent(lzText)),
        2,
      ),
    };
  });

  const typical = rows.filter((r) => !r.has_diagram);
  const summary = {
    traces: rows.length,
    typical_traces: typical.length,
    median_ratio_raw: round(median(typical.map((r) => r.ratio_raw))),
    median_ratio_lz: round(median(typical.map((r) => r.ratio_lz))),
    max_ratio_raw: round(Math.max(...typical.map((r) => r.ratio_raw))),
    max_ratio_lz: round(Math.max(...typical.map((r) => r.ratio_lz))),
    goals: { ratio_raw: 0.25, ratio_lz: 0.6 },
  };
  writeResults('share', { command: 'npm run bench:share', node: process.version, summary, rows });

  const table = [
    '| trace | JSON chars | Baton link | lz-string | link / JSON | link / lz | fitted link | encode ms | decode ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.trace}${r.has_diagram ? ' (diagram)' : ''} | ${r.raw_json_chars} | ${r.baton_chars} | ${r.lzstring_chars} | ` +
        `${r.ratio_raw.toFixed(3)} | ${r.ratio_lz.toFixed(3)} | ${r.fit_chars} | ${r.encode_ms} | ${r.decode_ms} |`,
    ),
  ].join('\n');
  const body = `Measured with \`npm run bench:share\` (bench/share.bench.ts, Node ${process.version}); raw rows in
\`bench/results/share.json\`. "JSON chars" is the compact JSON of the trace; "Baton link" is the
whole \`#t=1.…\` fragment; "lz-string" is \`compressToEncodedURIComponent\` of the same JSON (the
TypeScript Playground's link codec), payload only. "Fitted link" is what \`smallestLink\` gives under
the ${(32_000).toLocaleString('en-US')}-character budget (trimming only when needed). Times are medians
of repeated runs on this machine.

Over the ${summary.typical_traces} traces without a rendered diagram: median link / JSON
**${summary.median_ratio_raw}** (goal ≤ 0.25, worst ${summary.max_ratio_raw}), median link / lz-string
**${summary.median_ratio_lz}** (goal ≤ 0.6, worst ${summary.max_ratio_lz}). Traces with a diagram are
dominated by an already-compressed PNG that neither codec can shrink; the share button drops the
diagram (the viewer redraws it) when the link would exceed the budget.

${table}
`;
  writeDocSection('Share links', body);
  console.log(table);
  console.log(JSON.stringify(summary));
}

main();
