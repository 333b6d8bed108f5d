import { describe, expect, it } from 'vitest';
import { parsePyLiteral, readPyLiteral } from './py-literal.ts';

const value = (src: string, options = {}) => {
  const r = parsePyLiteral(src, options);
  if (!r.ok) throw new Error(`${r.error} at ${r.at}`);
  return r.value;
};

describe('Python literal reader', () => {
  it('reads JSON as written by json.dumps', () => {
    expect(value('{"a": [1, 2.5, -3e2], "b": null, "c": true, "d": "x\\u2019y"}')).toEqual({
      a: [1, 2.5, -300],
      b: null,
      c: true,
      d: 'x\u2019y',
    });
  });

  it('reads Python repr: single quotes, True/False/None, tuples, trailing commas', () => {
    expect(value("[{'name': 'CoTAgent', 'ok': True, 'x': None, 'pair': ('a', 'b'),}, False,]")).toEqual([
      { name: 'CoTAgent', ok: true, x: null, pair: ['a', 'b'] },
      false,
    ]);
    expect(value(`"it's" 'fine'`)).toBe("it'sfine");
  });

  it('processes escapes in ordinary strings and keeps raw strings raw', () => {
    expect(value("'a\\nb\\t\\'c\\x41\\101'")).toBe("a\nb\t'cAA");
    expect(value("r'\\frac{1}{2}'")).toBe('\\frac{1}{2}');
    expect(value("'\\d'")).toBe('\\d');
  });

  it('keeps triple-quoted bodies verbatim when asked (generated code pastes text unescaped)', () => {
    const src = '"""Use \\frac{a}{b} and "quotes" here"""';
    expect(value(src, { verbatimTripleQuoted: true })).toBe('Use \\frac{a}{b} and "quotes" here');
    expect(value(src)).toBe('Use \frac{a}{b} and "quotes" here');
    expect(value("'''multi\nline'''")).toBe('multi\nline');
  });

  it('reads sets as lists, skips comments and reports where it stopped', () => {
    expect(value("{'a', 'b'}  # roles")).toEqual(['a', 'b']);
    const r = readPyLiteral('x = [1, 2] + y', 4);
    expect(r).toMatchObject({ ok: true, value: [1, 2], end: 10 });
  });

  it('keeps a "__proto__" key as data', () => {
    const v = value('{"__proto__": {"polluted": 1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['[1, 2', 'never closed'],
    ['{"a" 1}', 'expected'],
    ['foo(1)', 'not a literal'],
    ["'abc", 'never closed'],
    ['"""abc', 'never closed'],
    ['[1] extra', 'unexpected text'],
    ["f'{x}'", 'not a literal'],
    ['{[1]: 2}', 'dict key'],
    ['', 'end of the text'],
    ["'\\x4'", 'bad'],
  ])('rejects %j with a message', (src, message) => {
    const r = parsePyLiteral(src);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(message);
  });

  it('refuses deep nesting instead of overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const r = parsePyLiteral(deep);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain('nested deeper');
  });
});
