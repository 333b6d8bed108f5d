import { deflateSync, strToU8 } from 'fflate';
import { parseTraceJson } from '../../src/core/parse-trace.ts';
import type { Problem, Result } from '../../src/core/result.ts';
import { createRng, hashString, type Rng } from '../../src/core/rng.ts';
import type { Trace } from '../../src/core/trace.ts';
import { parseDesign } from '../../src/design/parse.ts';
import type { RawDesign } from '../../src/design/raw.ts';
import { serializeDesignJson } from '../../src/design/json.ts';
import { serializeDesignXml } from '../../src/design/xml.ts';
import { encodeBase64Url } from '../../src/share/base64url.ts';
import { DICTIONARY_V1 } from '../../src/share/codec.ts';
import { decodeTraceLink, encodeTraceLink, MAX_LINK_INPUT_CHARS } from '../../src/share/link.ts';
import { sampleTraces } from './sample-traces.ts';

/**
 * Seeded fuzzing of every parser that reads untrusted text: share links, trace JSON, designs and
 * the importers. The property (DESIGN.md, "Everything that comes from outside … is turned into a
 * clear error"): no input makes a parser throw, and every failure carries at least one non-empty
 * message. Pure: inputs come from the seed alone; a clock is injected only to report slow cases.
 */

/** What a target made of one input: accepted, or refused with these messages. */
export type Verdict = { ok: true } | { ok: false; messages: string[] };

/** A parser under test. `run` may throw; the harness counts that as a finding. */
export interface FuzzTarget {
  name: string;
  run: (input: string, fileName: string | undefined) => Verdict;
}

const fromProblems = (errors: readonly Problem[]): Verdict => ({
  ok: false,
  messages: errors.map((e) => e.message),
});

export const linkTarget: FuzzTarget = {
  name: 'decodeTraceLink',
  run: (input) => {
    const r = decodeTraceLink(input);
    return r.ok ? { ok: true } : fromProblems(r.errors);
  },
};

export const traceJsonTarget: FuzzTarget = {
  name: 'parseTraceJson',
  run: (input) => {
    const r = parseTraceJson(input);
    return r.ok ? { ok: true } : fromProblems(r.errors);
  },
};

export const designTarget: FuzzTarget = {
  name: 'parseDesign',
  run: (input) => {
    const report = parseDesign(input);
    if (report.design) return { ok: true };
    return { ok: false, messages: [...report.problems, ...report.violations.map((v) => v.message)] };
  },
};

/** The importers' contract (src/importers/index.ts), restated so this layer need not import them. */
export type ImportTextFn = (
  text: string,
  fileName?: string,
) =>
  | { ok: true; kind: string; items: { label: string; result: Result<unknown> }[] }
  | { ok: false; error: Problem };

/**
 * Builds the importer target. It is passed in rather than imported because `share` sits beside
 * `importers` in the layer order (docs/architecture.md); the callers (the fuzz test and
 * scripts/fuzz.ts) add it to `CORE_TARGETS`.
 */
export function importerTarget(run: ImportTextFn): FuzzTarget {
  return {
    name: 'importText',
    run: (input, fileName) => {
      const outcome = run(input, fileName);
      if (!outcome.ok) return { ok: false, messages: [outcome.error.message] };
      // A file can import with some items failing; each failed item must explain itself too. An
      // item that failed without any problem becomes an empty message, which the harness reports.
      const messages = outcome.items.flatMap((i) =>
        i.result.ok ? [] : i.result.errors.length > 0 ? i.result.errors.map((e) => e.message) : [''],
      );
      return messages.length === 0 ? { ok: true } : { ok: false, messages };
    },
  };
}

/**
 * The registry of parsers this layer can reach, in the order the summary lists them. Add new
 * parsers of untrusted text here, or (from layers `share` may not import) via a target builder
 * like `importerTarget`.
 */
export const CORE_TARGETS: readonly FuzzTarget[] = [linkTarget, traceJsonTarget, designTarget];

// ---------------------------------------------------------------- inputs

export interface Corpus {
  links: string[];
  traceJson: string[];
  designs: string[];
  /** Other tools' files (MAS-Orchestra slides, pages, snapshots). */
  imports: { text: string; fileName?: string }[];
}

function rawDesignOf(trace: Trace): RawDesign {
  return {
    dom: trace.design.dom,
    ...(trace.design.thinking !== undefined ? { thinking: trace.design.thinking } : {}),
    agents: trace.design.agents.map((a) => ({
      id: a.id,
      type: a.type,
      description: a.description,
      input: a.input,
      ...(a.params.debateRoles ? { debateRoles: a.params.debateRoles } : {}),
    })),
    edges: trace.design.edges,
  };
}

const SLIDE = {
  row: '3',
  step: '120',
  question: 'How many positive divisors does 2024 have?',
  thinking: '<thinking>One CoT agent is enough.</thinking>',
  mas_code:
    'async def forward(self, original_task_info):\n    agent_name = """CoTAgent"""\n    agent_description = """Count divisors."""\n    agent_id = """solver"""\n    agent_calls = [\n    {\n        "name": "CoTAgent",\n        "required_arguments": {\n            "agent_input": ""\n        }\n    }\n]\n',
  image: '',
  error: 'False',
  error_msg: '',
  execution_output: '12',
  ground_truth: '12',
};

const SNAPSHOT = {
  problem: 'What is 17 * 23?',
  dataset: 'custom',
  dom: 'high',
  subagent_model: 'gpt-4o-mini',
  expected_answer: '391',
  plan: { xml: '<agent></agent>', graph: {}, thinking: 'two agents' },
  graph: {
    agents: [
      { id: 'a', type: 'CoTAgent', description: 'multiply', input: '', depends_on: [] },
      { id: 'b', type: 'ReflexionAgent', description: 'check', input: 'check ${a}', depends_on: ['a'] },
    ],
    edges: [{ source: 'a', target: 'b' }],
    answer_agent: 'b',
  },
  agent_states: { a: { status: 'completed', output: '391' }, b: { status: 'completed', output: '391' } },
  final_answer: '391',
  chat_messages: [],
  title: 'multiply',
  created_at: '2026-11-01T00:00:00Z',
};

/** Valid inputs of every kind, built from the sample traces; mutations start from these. */
/** A design with CDATA sections and a non-ASCII id, the forms the XML reader handles specially. */
const CDATA_DESIGN = `<agent><agent_id>ñandú</agent_id><agent_name>CoTAgent</agent_name><agent_description><![CDATA[Estimate, if 2 > 1 & more.]]></agent_description><required_arguments><agent_input><![CDATA[]]></agent_input></required_arguments></agent>
<agent><agent_id>judge</agent_id><agent_name>DebateAgent</agent_name><agent_description>Decide.</agent_description><required_arguments><agent_input><![CDATA[Check \${ñandú}; x<y, </agent_input> is text.]]></agent_input><debate_roles><![CDATA[["Critic", "critic"]]]></debate_roles></required_arguments></agent>
<edge><from>ñandú</from><to>judge</to></edge>`;

export function defaultCorpus(): Corpus {
  const traces = sampleTraces();
  return {
    links: traces.map((t) => encodeTraceLink(t).fragment),
    traceJson: traces.map((t, i) => JSON.stringify(t, null, i % 2 === 0 ? 2 : undefined)),
    designs: [
      ...traces.flatMap((t) => [serializeDesignXml(rawDesignOf(t)), serializeDesignJson(rawDesignOf(t))]),
      CDATA_DESIGN,
    ],
    imports: [
      {
        text: JSON.stringify([SLIDE, { ...SLIDE, row: '4' }]),
        fileName: 'qwen2.5_20b_oss_20b_low_depth6.json',
      },
      {
        text: `<html><head><title>case</title></head><body><script>const slides = ${JSON.stringify([SLIDE])};</script></body></html>`,
        fileName: 'harmony_grpo_7b_120b_aime24.html',
      },
      { text: JSON.stringify(SNAPSHOT), fileName: 'snapshot.json' },
      { text: JSON.stringify(traces[0]) },
    ],
  };
}

/** Random text: ASCII, control characters, any UTF-16 unit (lone surrogates included) and markup. */
function randomText(rng: Rng, max: number): string {
  const n = rng.int(max + 1);
  const style = rng.int(4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    if (style === 0) parts.push(String.fromCharCode(rng.int(128)));
    else if (style === 1) parts.push(String.fromCharCode(rng.int(0x10000)));
    else if (style === 2)
      parts.push(
        rng.pick([
          '{',
          '}',
          '[',
          ']',
          '"',
          ':',
          ',',
          '<',
          '>',
          '/',
          '\\',
          'a',
          '1',
          ' ',
          '\n',
          '${',
          'agent',
          '#t=',
          '.',
          '<![CDATA[',
          ']]>',
        ]),
      );
    else parts.push('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[rng.int(64)] ?? 'A');
  }
  return parts.join('');
}

/** One random edit of the text: truncation, bit flips, deleted, inserted or repeated spans, structural characters. */
export function mutate(rng: Rng, text: string): string {
  const at = rng.int(text.length + 1);
  switch (rng.int(8)) {
    case 0: // truncate
      return text.slice(0, at);
    case 1: {
      // flip one bit of one UTF-16 unit
      if (text.length === 0) return text;
      const i = Math.min(at, text.length - 1);
      return (
        text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ (1 << rng.int(8))) + text.slice(i + 1)
      );
    }
    case 2: // delete a span
      return text.slice(0, at) + text.slice(at + 1 + rng.int(64));
    case 3: // insert random text
      return text.slice(0, at) + randomText(rng, 16) + text.slice(at);
    case 4: {
      // duplicate a span (repeated keys, doubled tags)
      const end = Math.min(text.length, at + rng.int(200));
      return text.slice(0, end) + text.slice(at, end) + text.slice(end);
    }
    case 5: // swap two halves
      return text.slice(at) + text.slice(0, at);
    case 6: {
      // several bit flips
      let out = text;
      for (let k = 0; k < 1 + rng.int(8); k++) out = mutate(rng, out);
      return out;
    }
    default: // replace one character with a structural one
      return (
        text.slice(0, at) + rng.pick(['"', '}', ']', '<', '\u0000', '\ud800', '=', '%']) + text.slice(at + 1)
      );
  }
}

/** Replaces a random value deep inside a JSON document with a value of another type. */
export function mutateJsonValue(rng: Rng, json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  const odd: unknown[] = [
    null,
    -1,
    1e308,
    'x',
    '',
    [],
    {},
    true,
    'baton.trace/2',
    { format: 'baton.trace/1' },
    '\u0000',
  ];
  let node: unknown = value;
  for (let depth = 0; depth < 8; depth++) {
    if (typeof node !== 'object' || node === null) break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = rng.pick(keys);
    const child = (node as Record<string, unknown>)[key];
    if (rng.int(3) === 0 || typeof child !== 'object' || child === null) {
      if (rng.int(4) === 0) delete (node as Record<string, unknown>)[key];
      else (node as Record<string, unknown>)[key] = rng.pick(odd);
      break;
    }
    node = child;
  }
  return JSON.stringify(value);
}

/** A link whose payload is valid deflate of `text`, so the JSON and schema layers get exercised. */
function linkOf(text: string, version = 1): string {
  return `#t=${version}.${encodeBase64Url(deflateSync(strToU8(text), { level: 1, dictionary: DICTIONARY_V1 }))}`;
}

export type GeneratorName =
  | 'random'
  | 'mutated-link'
  | 'wrong-version'
  | 'mutated-trace-json'
  | 'wrong-types'
  | 'linked-bad-json'
  | 'mutated-design'
  | 'mutated-import'
  | 'oversized';

interface Generated {
  generator: GeneratorName;
  input: string;
  fileName?: string;
}

function generate(rng: Rng, corpus: Corpus, allowOversized: boolean): Generated {
  // Oversized inputs allocate tens of MB each, so they are one case in a hundred.
  const kind = allowOversized && rng.int(100) === 0 ? 9 : rng.int(9);
  const any = (): string =>
    rng.pick([...corpus.links, ...corpus.traceJson, ...corpus.designs, ...corpus.imports.map((i) => i.text)]);
  switch (kind) {
    case 0:
      return { generator: 'random', input: randomText(rng, rng.int(4) === 0 ? 4000 : 200) };
    case 1:
      return { generator: 'mutated-link', input: mutate(rng, rng.pick(corpus.links)) };
    case 2: {
      const link = rng.pick(corpus.links);
      const version = rng.pick(['0', '2', '99', '-1', '1a', '01', '', '1.1', '999999999999']);
      return { generator: 'wrong-version', input: link.replace(/^#t=1\./, `#t=${version}.`) };
    }
    case 3:
      return { generator: 'mutated-trace-json', input: mutate(rng, rng.pick(corpus.traceJson)) };
    case 4:
      return { generator: 'wrong-types', input: mutateJsonValue(rng, rng.pick(corpus.traceJson)) };
    case 5: {
      // Compressed correctly, but what is inside is damaged: reaches JSON.parse and the schema.
      const inner = rng.int(2) === 0 ? mutateJsonValue(rng, rng.pick(corpus.traceJson)) : mutate(rng, any());
      return { generator: 'linked-bad-json', input: linkOf(inner) };
    }
    case 6:
      return { generator: 'mutated-design', input: mutate(rng, rng.pick(corpus.designs)) };
    case 7: {
      const item = rng.pick(corpus.imports);
      const text = rng.int(2) === 0 ? mutateJsonValue(rng, item.text) : mutate(rng, item.text);
      const fileName = rng.pick([item.fileName, undefined, 'x.html', 'case.json', '']);
      return { generator: 'mutated-import', input: text, ...(fileName !== undefined ? { fileName } : {}) };
    }
    case 8:
      return { generator: 'mutated-link', input: mutate(rng, mutate(rng, rng.pick(corpus.links))) };
    default: {
      // Past the size limits: each parser must refuse by size without trying to read it.
      const pick = rng.int(3);
      if (pick === 0) return { generator: 'oversized', input: `#t=1.${'A'.repeat(MAX_LINK_INPUT_CHARS)}` };
      if (pick === 1) return { generator: 'oversized', input: JSON.stringify('x'.repeat(32_000_001)) };
      return { generator: 'oversized', input: `<agent>${' '.repeat(4_000_001)}</agent>` };
    }
  }
}

// ---------------------------------------------------------------- harness

export interface FuzzFinding {
  case: number;
  target: string;
  generator: GeneratorName;
  /** What went wrong: the exception, or the verdict without a usable message. */
  problem: string;
  /** The start of the input, enough to recognise it; rerun the case number to get all of it. */
  preview: string;
}

export interface FuzzSummary {
  seed: number;
  cases: number;
  byTarget: Record<string, { ok: number; refused: number }>;
  byGenerator: Partial<Record<GeneratorName, number>>;
  findings: FuzzFinding[];
  /** The slowest single call, when a clock was given. */
  slowest: { case: number; target: string; generator: GeneratorName; ms: number } | null;
}

export interface FuzzOptions {
  seed: number;
  cases: number;
  targets: readonly FuzzTarget[];
  corpus?: Corpus;
  /** Include oversized inputs (about 1% of cases). */
  oversized?: boolean;
  /** Monotonic milliseconds, e.g. `performance.now`, to find slow inputs. */
  clock?: () => number;
}

/** The input of case `index` of a run with `seed`: each case has its own stream, so it can be replayed alone. */
export function fuzzCase(seed: number, index: number, corpus: Corpus, oversized = true): Generated {
  return generate(createRng(hashString(`${seed}:${index}`)), corpus, oversized);
}

export function runFuzz(o: FuzzOptions): FuzzSummary {
  const targets = o.targets;
  const corpus = o.corpus ?? defaultCorpus();
  const summary: FuzzSummary = {
    seed: o.seed,
    cases: o.cases,
    byTarget: {},
    byGenerator: {},
    findings: [],
    slowest: null,
  };
  for (const t of targets) summary.byTarget[t.name] = { ok: 0, refused: 0 };
  for (let i = 0; i < o.cases; i++) {
    const g = fuzzCase(o.seed, i, corpus, o.oversized ?? false);
    summary.byGenerator[g.generator] = (summary.byGenerator[g.generator] ?? 0) + 1;
    for (const t of targets) {
      const started = o.clock?.() ?? 0;
      let verdict: Verdict;
      try {
        verdict = t.run(g.input, g.fileName);
      } catch (e) {
        summary.findings.push({
          case: i,
          target: t.name,
          generator: g.generator,
          problem: `threw: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
          preview: g.input.slice(0, 120),
        });
        continue;
      }
      if (o.clock) {
        const ms = o.clock() - started;
        if (!summary.slowest || ms > summary.slowest.ms) {
          summary.slowest = { case: i, target: t.name, generator: g.generator, ms };
        }
      }
      const counts = summary.byTarget[t.name]!;
      if (verdict.ok) counts.ok += 1;
      else {
        counts.refused += 1;
        if (
          verdict.messages.length === 0 ||
          verdict.messages.some((m) => typeof m !== 'string' || m.trim() === '')
        ) {
          summary.findings.push({
            case: i,
            target: t.name,
            generator: g.generator,
            problem: 'refused without a message',
            preview: g.input.slice(0, 120),
          });
        }
      }
    }
  }
  return summary;
}
