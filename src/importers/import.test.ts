import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import { IMPORT_LIMITS, importText, importValue, type ImportOutcome } from './index.ts';

const trace = (query: string) => minimalTrace({ query, title: query });

function errorOf(outcome: ImportOutcome): { code: string; message: string } {
  if (outcome.ok) throw new Error(`expected an error, got ${outcome.kind}`);
  return outcome.error;
}

describe('Baton traces', () => {
  it('one trace, a list, and {traces: [...]}', () => {
    const one = importText(JSON.stringify(trace('a')));
    expect(one.ok && one.kind).toBe('baton-trace');
    expect(one.ok && one.items[0]?.result.ok).toBe(true);

    const list = importValue([trace('a'), trace('b')]);
    expect(list.ok && list.kind).toBe('baton-trace-list');
    expect(list.ok && list.items.map((i) => i.label)).toEqual(['trace 1 · a', 'trace 2 · b']);

    const wrapped = importValue({ traces: [trace('c')] });
    expect(wrapped.ok && wrapped.kind).toBe('baton-trace-list');
  });

  it('a bad trace in a list fails alone, with the schema problem', () => {
    const broken = { ...trace('x'), id: 'has spaces' };
    const outcome = importValue([trace('ok'), broken, { ...trace('new'), format: 'baton.trace/99' }]);
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.items.map((i) => i.result.ok)).toEqual([true, false, false]);
    const [, second, third] = outcome.items;
    if (second?.result.ok === false) expect(second.result.errors[0]?.code).toBe('E_TRACE_SCHEMA');
    if (third?.result.ok === false) expect(third.result.errors[0]?.code).toBe('E_TRACE_VERSION_NEWER');
  });
});

describe('inputs that are not importable', () => {
  it('names what was expected and what was found', () => {
    const e = errorOf(importValue({ hello: 1, world: 2 }));
    expect(e.code).toBe('E_IMPORT_UNKNOWN');
    expect(e.message).toContain(
      'expected a MAS-Orchestra slides array, a MAS-Orchestra demo snapshot, or a baton.trace/1 object',
    );
    expect(e.message).toContain('found an object with keys "hello", "world"');
    expect(errorOf(importValue([])).message).toContain('found an empty array');
    expect(errorOf(importValue([1, 2, 3])).message).toContain(
      'found an array of 3 whose first element is a number',
    );
    expect(errorOf(importValue('text')).message).toContain('found a string');
    expect(errorOf(importValue(null)).message).toContain('found null');
    expect(errorOf(importValue([{ problem: 'p', graph: {} }])).message).toContain('one file at a time');
  });

  it('reports invalid and truncated JSON with the parser message', () => {
    const e = errorOf(importText('{"format": "baton.trace/1", "id": '));
    expect(e.code).toBe('E_JSON');
    expect(e.message).toContain('expected a MAS-Orchestra slides array');
    expect(errorOf(importText('')).message).toContain('empty');
    expect(errorOf(importText('   \n')).code).toBe('E_JSON');
  });

  it('enforces the size and item limits', () => {
    expect(errorOf(importText(' '.repeat(IMPORT_LIMITS.chars + 1))).code).toBe('E_TOO_LARGE');
    expect(errorOf(importText('['.repeat(1_000_000))).code).toBe('E_JSON');
    const many = Array.from({ length: IMPORT_LIMITS.items + 1 }, () => ({ question: 'q', mas_code: '' }));
    expect(errorOf(importValue(many)).code).toBe('E_TOO_LARGE');
    expect(errorOf(importValue({ traces: many })).code).toBe('E_TOO_LARGE');
  });

  it('wrong field types fail per slide, and the other slides still import', () => {
    const outcome = importValue([
      { row: 0, step: '1', question: 'fine', mas_code: '', execution_output: '1', ground_truth: '1' },
      { row: 1, step: '1', question: ['not', 'text'], mas_code: 7 },
      'not a slide',
    ]);
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.kind).toBe('mas-orchestra-slides');
    expect(outcome.items.map((i) => i.result.ok)).toEqual([true, false, false]);
    expect(outcome.items[1]?.label).toBe('slide 2 (row 1)');
    if (outcome.items[1]?.result.ok === false) {
      expect(outcome.items[1].result.errors[0]?.message).toContain('not a MAS-Orchestra slide');
    }
  });

  it('never throws on random text, random JSON or mangled slides', () => {
    const rng = createRng(20260314);
    const alphabet = '{}[]",:0123456789abcdeflnrstu \n\\\'<>=_-.';
    const slide = JSON.stringify([
      {
        row: 1,
        step: '2',
        question: 'q',
        mas_code: "agent_calls = [{'name': 'CoTAgent'}]",
        execution_output: '1',
      },
    ]);
    for (let i = 0; i < 2000; i++) {
      const kind = i % 3;
      let text: string;
      if (kind === 0) {
        text = Array.from({ length: rng.int(80) }, () => alphabet[rng.int(alphabet.length)]).join('');
      } else if (kind === 1) {
        const cut = rng.int(slide.length);
        text = slide.slice(0, cut) + alphabet[rng.int(alphabet.length)] + slide.slice(cut + 1);
      } else {
        text = '<html><script>const slides = ' + slide.slice(0, rng.int(slide.length + 1)) + '</script>';
      }
      const outcome = importText(text, i % 2 ? 'x.html' : undefined);
      expect(typeof outcome.ok).toBe('boolean');
      if (!outcome.ok) expect(outcome.error.message.length).toBeGreaterThan(10);
    }
  });

  it('garbage inside mas_code degrades to a warning on an otherwise good trace', () => {
    const codes = [
      'agents_config = [{"agent_id": 1}]\nedges = "nope"',
      'agents_config = {"not": "a list"}',
      'agent_calls = [[[[',
      'agent_name = """unterminated',
      'x'.repeat(10_000),
    ];
    for (const mas_code of codes) {
      const outcome = importValue([
        { row: 0, question: 'q', mas_code, execution_output: 'a', ground_truth: 'a' },
      ]);
      expect(outcome.ok && outcome.items[0]?.result.ok).toBe(true);
    }
  });
});
