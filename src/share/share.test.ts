import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, strToU8 } from 'fflate';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashString } from '../core/rng.ts';
import { parseTraceJson } from '../core/parse-trace.ts';
import type { Trace } from '../core/trace.ts';
import { encodeBase64Url, decodeBase64Url } from './base64url.ts';
import { DICTIONARY_V1 } from './codec.ts';
import { DICTIONARY_V1_TEXT } from './dictionary-v1.ts';
import {
  decodeTraceLink,
  designOnlyInDiagram,
  encodeTraceLink,
  LINK_BUDGET_CHARS,
  MAX_LINK_INPUT_CHARS,
  shareUrl,
  smallestLink,
} from './index.ts';
import {
  diagramOnlyTrace,
  incompressibleBase64,
  sampleTrace,
  sampleTraces,
} from '../../tests/support/sample-traces.ts';

const EXAMPLES = join(import.meta.dirname, '../../public/examples');

function bundledExamples(): { name: string; trace: Trace }[] {
  if (!existsSync(EXAMPLES)) return [];
  return readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.json') && f !== 'index.json')
    .flatMap((f) => {
      const r = parseTraceJson(readFileSync(join(EXAMPLES, f), 'utf8'));
      return r.ok ? [{ name: f, trace: r.value }] : [];
    });
}

function decoded(input: string): Trace {
  const r = decodeTraceLink(input);
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.value;
}

function errorOf(input: string): { code: string; message: string } {
  const r = decodeTraceLink(input);
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error('expected an error');
  expect(r.errors.length).toBeGreaterThan(0);
  return r.errors[0]!;
}

/** Raw deflate against the v1 dictionary, for hand-made payloads. */
const payloadOf = (text: string | Uint8Array): string =>
  encodeBase64Url(
    deflateSync(typeof text === 'string' ? strToU8(text) : text, { level: 1, dictionary: DICTIONARY_V1 }),
  );

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('round trip', () => {
  it.each(sampleTraces().map((t) => [t.id, t] as const))(
    'sample %s decodes to an identical trace',
    (_, trace) => {
      const link = encodeTraceLink(trace);
      expect(link.fragment).toMatch(/^#t=1\.[A-Za-z0-9_-]+$/);
      expect(link.fragment).toBe(`#t=1.${link.payload}`);
      expect(link.chars).toBe(link.fragment.length);
      expect(link.trimmed).toBeNull();
      expect(decoded(link.fragment)).toEqual(trace);
    },
  );

  it('every bundled example decodes to an identical trace', () => {
    const examples = bundledExamples();
    for (const { name, trace } of examples) {
      const link = encodeTraceLink(trace);
      expect(decoded(link.fragment), name).toEqual(trace);
      expect(link.overBudget, name).toBe(false);
    }
  });

  it('is deterministic', () => {
    const t = sampleTrace({ seed: 5, shape: 'chain' });
    expect(encodeTraceLink(t).payload).toBe(encodeTraceLink(structuredClone(t)).payload);
  });

  it('keeps unicode, lone surrogates and control characters', () => {
    const t = sampleTrace({ seed: 9, shape: 'cot' });
    t.task.query = 'Wie viele 🧮 gibt es? — ∑ x² \u0000 \ud800 "quoted" \\ back';
    expect(decoded(encodeTraceLink(t).fragment)).toEqual(t);
  });
});

describe('accepted inputs', () => {
  const trace = sampleTrace({ seed: 1, shape: 'cot' });
  const link = encodeTraceLink(trace);
  const forms = {
    'full URL': `https://baton.example/app/?x=1${link.fragment}`,
    fragment: link.fragment,
    'no hash': link.fragment.slice(1),
    bare: `1.${link.payload}`,
    'other params': `#view=graph&t=1.${link.payload}`,
    'wrapped in angle brackets': `<https://baton.example/${link.fragment}>`,
    'line-wrapped': `  ${link.fragment.slice(0, 40)}\n  ${link.fragment.slice(40)}\n`,
  };
  it.each(Object.entries(forms))('%s', (_, input) => {
    expect(decoded(input)).toEqual(trace);
  });

  it('shareUrl replaces an existing fragment', () => {
    expect(shareUrl('https://baton.example/#old', link)).toBe(`https://baton.example/${link.fragment}`);
    expect(shareUrl('https://baton.example/app', link)).toBe(`https://baton.example/app${link.fragment}`);
  });
});

describe('rejected inputs', () => {
  const link = encodeTraceLink(sampleTrace({ seed: 2, shape: 'sc' }));

  it('explains a newer link format', () => {
    const e = errorOf(`#t=2.${link.payload}`);
    expect(e.code).toBe('E_LINK');
    expect(e.message).toMatch(/link format 2.*newer/);
  });

  it('rejects link format 0 and a missing version', () => {
    expect(errorOf(`#t=0.${link.payload}`).message).toMatch(/link format 0/);
    expect(errorOf(`#t=01.${link.payload}`).message).toMatch(/link format 01 does not exist/);
    expect(errorOf(`#t=${link.payload}`).message).toMatch(/format version/);
  });

  it('rejects text without a link', () => {
    expect(errorOf('').code).toBe('E_LINK');
    expect(errorOf('https://baton.example/#view=graph').message).toMatch(/#t=/);
    expect(errorOf('hello').message).toMatch(/#t=/);
  });

  it('rejects characters outside base64url', () => {
    expect(errorOf(`#t=1.${link.payload.slice(0, 20)}+/${link.payload.slice(22)}`).message).toMatch(
      /not base64url/,
    );
  });

  it('rejects a link cut short', () => {
    for (const keep of [1, 2, 3, 10, Math.floor(link.payload.length / 2), link.payload.length - 3]) {
      const e = errorOf(`#t=1.${link.payload.slice(0, keep)}`);
      expect(e.message.length).toBeGreaterThan(10);
    }
  });

  it('rejects an edited link', () => {
    const p = link.payload;
    const flipped = p.slice(0, 100) + (p[100] === 'A' ? 'B' : 'A') + p.slice(101);
    const r = decodeTraceLink(`#t=1.${flipped}`);
    // A flip deep in the stream may still inflate; then the JSON or the schema must catch it.
    if (!r.ok) expect(r.errors[0]!.message).not.toBe('');
  });

  it('rejects JSON that is not a trace, and text that is not JSON', () => {
    expect(errorOf(`#t=1.${payloadOf('{"hello":1}')}`).code).toBe('E_TRACE_FORMAT');
    expect(errorOf(`#t=1.${payloadOf('not json')}`).message).toMatch(/not valid JSON/);
    expect(errorOf(`#t=1.${payloadOf(new Uint8Array([0xff, 0xfe, 0x80]))}`).message).toMatch(/UTF-8/);
  });

  it('stops inflating a zip bomb', () => {
    const bomb = payloadOf(new Uint8Array(40 * 1024 * 1024).fill(32));
    expect(bomb.length).toBeLessThan(100_000);
    expect(errorOf(`#t=1.${bomb}`).message).toMatch(/expands to more than/);
  });

  it('refuses oversized input before looking at it', () => {
    const e = errorOf(`#t=1.${'A'.repeat(MAX_LINK_INPUT_CHARS)}`);
    expect(e.code).toBe('E_TOO_LARGE');
  });

  it('never contacts a server', () => {
    const fetchSpy = vi.fn(() => {
      throw new Error('network used');
    });
    vi.stubGlobal('fetch', fetchSpy);
    vi.stubGlobal('XMLHttpRequest', fetchSpy);
    expect(decodeTraceLink(link.fragment).ok).toBe(true);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe('redaction in links', () => {
  it('removes keys before encoding', () => {
    const t = sampleTrace({ seed: 3, shape: 'cot' });
    t.task.query = 'Use key sk-proj-abcdefghijklmnopqrstuvwxyz0123 please';
    t.design.agents[0]!.params = { ...t.design.agents[0]!.params, apiKey: 'sk-abcdefghijklmnopqrstu' };
    const back = decoded(encodeTraceLink(t).fragment);
    expect(back.task.query).toBe('Use key [redacted] please');
    expect(back.design.agents[0]!.params).not.toHaveProperty('apiKey');
    expect(JSON.stringify(back)).not.toMatch(/sk-/);
  });
});

describe('trimming', () => {
  const big = sampleTrace({ seed: 4, shape: 'debate', steps: 40 });

  it('cuts long texts, marks them and counts what was cut', () => {
    const link = encodeTraceLink(big, { trimOutputsTo: 200 });
    expect(link.trimmed).not.toBeNull();
    const back = decoded(link.fragment);
    expect(back.trimmed).toEqual(link.trimmed);
    const call = back.execution.events.find((e) => e.type === 'llm.call');
    expect(call?.type === 'llm.call' && call.output).toMatch(/^[\s\S]{200} … \[\d+ characters trimmed\]$/);
    expect(back.design).toEqual(big.design);
    expect(back.result).toEqual(big.result);
    expect(link.chars).toBeLessThan(encodeTraceLink(big).chars);
  });

  it('reports null when nothing was long enough to cut', () => {
    expect(encodeTraceLink(big, { trimOutputsTo: 1_000_000 }).trimmed).toBeNull();
  });

  it('adds to an earlier trim count', () => {
    const once = decoded(encodeTraceLink(big, { trimOutputsTo: 2000 }).fragment);
    const twice = decoded(encodeTraceLink(once, { trimOutputsTo: 100 }).fragment);
    expect(twice.trimmed!.fields).toBeGreaterThan(once.trimmed!.fields);
  });

  it('drops a diagram when trimming', () => {
    const t: Trace = {
      ...sampleTrace({ seed: 6, shape: 'cot' }),
      diagram: `data:image/png;base64,${'A'.repeat(5000)}`,
    };
    expect(decoded(encodeTraceLink(t).fragment).diagram).toBe(t.diagram);
    const back = decoded(encodeTraceLink(t, { trimOutputsTo: 10_000 }).fragment);
    expect(back.diagram).toBeUndefined();
    expect(back.trimmed).toEqual({ fields: 1, charsRemoved: t.diagram!.length });
  });

  it('smallestLink returns the untrimmed link when it fits', () => {
    const t = sampleTrace({ seed: 7, shape: 'sc' });
    expect(smallestLink(t)).toEqual(encodeTraceLink(t));
  });

  it('smallestLink trims a trace that does not fit until it does', () => {
    // Many agents with long, varied outputs: far over budget untrimmed.
    const parts = [1, 2, 3, 4, 5, 6].map((i) => sampleTrace({ seed: 40 + i, shape: 'wide', steps: 60 }));
    const t: Trace = {
      ...parts[0]!,
      execution: {
        ...parts[0]!.execution,
        events: parts.flatMap((p, i) =>
          p.execution.events.map((e) => ({
            ...e,
            ...('agentId' in e ? { agentId: `${e.agentId}-${i}` } : {}),
          })),
        ),
      },
    };
    expect(encodeTraceLink(t).overBudget).toBe(true);
    const link = smallestLink(t);
    expect(link.overBudget).toBe(false);
    expect(link.chars).toBeLessThanOrEqual(LINK_BUDGET_CHARS);
    expect(link.trimmed).not.toBeNull();
    expect(decoded(link.fragment).trimmed).toEqual(link.trimmed);
  });
});

describe('a design that exists only as a diagram', () => {
  const diagramOnly = (diagramChars: number, thinkingChars: number): Trace =>
    diagramOnlyTrace({ diagramChars, thinkingChars });

  it('is recognised by its shape: a diagram, no agents, no direct answer', () => {
    const t = diagramOnly(100, 10);
    expect(designOnlyInDiagram(t)).toBe(true);
    expect(designOnlyInDiagram({ ...t, design: { ...t.design, directAnswer: '7' } })).toBe(false);
    const withAgents = sampleTrace({ seed: 6, shape: 'cot' });
    expect(designOnlyInDiagram({ ...withAgents, diagram: t.diagram! })).toBe(false);
  });

  it('keeps a small diagram and trims the texts instead', () => {
    const t = diagramOnly(6_000, 60_000);
    expect(encodeTraceLink(t).overBudget).toBe(true);
    const link = smallestLink(t);
    expect(link.overBudget).toBe(false);
    expect(link.droppedDiagram).toBeNull();
    expect(link.trimmed?.fields).toBe(1);
    const back = decoded(link.fragment);
    expect(back.diagram).toBe(t.diagram);
    expect(back.design.thinking).toMatch(/ … \[\d+ characters trimmed\]$/);
  });

  it('says when a diagram too large for any link is left out, and that it was the whole design', () => {
    const t = diagramOnly(120_000, 2_000);
    const full = encodeTraceLink(t);
    expect(full.overBudget).toBe(true);
    expect(full.droppedDiagram).toBeNull();
    const link = smallestLink(t);
    expect(link.overBudget).toBe(false);
    expect(link.droppedDiagram).toEqual({ chars: t.diagram!.length, onlyRecordOfDesign: true });
    expect(decoded(link.fragment).diagram).toBeUndefined();
  });

  it('a dropped diagram of a design with agents is not the whole design', () => {
    const t: Trace = {
      ...sampleTrace({ seed: 6, shape: 'cot' }),
      diagram: `data:image/png;base64,${incompressibleBase64(5_000, 3)}`,
    };
    expect(encodeTraceLink(t).droppedDiagram).toBeNull();
    expect(encodeTraceLink(t, { trimOutputsTo: 100 }).droppedDiagram).toEqual({
      chars: t.diagram!.length,
      onlyRecordOfDesign: false,
    });
  });
});

describe('format pins', () => {
  it('the v1 dictionary never changes', () => {
    // Changing these bytes breaks every link ever shared; see dictionary-v1.ts.
    expect(DICTIONARY_V1_TEXT.length).toBe(7486);
    expect(hashString(DICTIONARY_V1_TEXT)).toBe(3710220175);
    expect(DICTIONARY_V1.length).toBe(DICTIONARY_V1_TEXT.length);
  });

  it('base64url round-trips every length', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 37 + n) & 0xff);
      const text = encodeBase64Url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      const back = decodeBase64Url(text);
      expect(back.ok && [...back.bytes]).toEqual([...bytes]);
    }
  });
});
