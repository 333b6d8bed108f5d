import { describe, expect, it } from 'vitest';
import { isEmptyQuery, matchesQuery, parseQuery, type SearchDoc } from './search.ts';

const doc = (over: Partial<SearchDoc> = {}): SearchDoc => ({
  text: 'find the remainder · aime24 · row 130 · step 130\nharmony_grpo_7b_120b_aime24.json',
  file: 'harmony_grpo_7b_120b_aime24.json',
  row: '130',
  step: '130',
  result: 'correct',
  types: ['cotagent', 'debateagent'],
  dom: 'high',
  tags: ['mas-orchestra', 'case-page'],
  ...over,
});

describe('parseQuery', () => {
  it('reads words, quoted phrases and field filters', () => {
    expect(parseQuery('AIME24 "find the  Remainder" file:harmony row:130 step:7')).toEqual({
      text: ['aime24', 'find the remainder'],
      fields: { file: ['harmony'], row: ['130'], step: ['7'] },
      problems: [],
    });
  });

  it('takes quoted field values', () => {
    expect(parseQuery('file:"my cases.json" type:Debate').fields).toEqual({
      file: ['my cases.json'],
      type: ['debate'],
    });
  });

  it('reads "row 130" and "step 7" as the fields, and quoted they are words again', () => {
    expect(parseQuery('aime24 row 130').fields).toEqual({ row: ['130'] });
    expect(parseQuery('aime24 row 130').text).toEqual(['aime24']);
    expect(parseQuery('Step 007').fields).toEqual({ step: ['7'] });
    expect(parseQuery('"row 130"')).toEqual({ text: ['row 130'], fields: {}, problems: [] });
    // "row" without a number after it is a word.
    expect(parseQuery('row three').text).toEqual(['row', 'three']);
  });

  it('keeps unknown keys and times as words', () => {
    expect(parseQuery('ratio:3 10:30').text).toEqual(['ratio:3', '10:30']);
    expect(parseQuery('ratio:3').fields).toEqual({});
  });

  it('says what it could not read instead of guessing', () => {
    const q = parseQuery('row:abc result:maybe dom:low');
    expect(q.fields).toEqual({ dom: ['low'] });
    expect(q.problems).toHaveLength(2);
    expect(q.problems[0]).toContain('row:');
    expect(q.problems[1]).toContain('correct, wrong, failed, unknown');
  });

  it('treats an empty value or an unclosed quote sensibly', () => {
    expect(isEmptyQuery(parseQuery('   '))).toBe(true);
    expect(isEmptyQuery(parseQuery('file:'))).toBe(false);
    expect(parseQuery('file:').text).toEqual(['file:']);
    expect(parseQuery('"unclosed phrase').text).toEqual(['unclosed phrase']);
  });
});

describe('matchesQuery', () => {
  it('needs every word and phrase in the text', () => {
    expect(matchesQuery(parseQuery('aime24 remainder'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('aime24 geometry'), doc())).toBe(false);
    expect(matchesQuery(parseQuery('"the remainder"'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('"remainder the"'), doc())).toBe(false);
  });

  it('matches rows and steps exactly, not as substrings', () => {
    expect(matchesQuery(parseQuery('row:130'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('row:13'), doc())).toBe(false);
    expect(matchesQuery(parseQuery('aime24 row 130'), doc({ row: '13' }))).toBe(false);
    expect(matchesQuery(parseQuery('aime24 row 130'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('step:130'), doc({ step: '' }))).toBe(false);
  });

  it('filters by file, result, agent type, DoM and tag', () => {
    expect(matchesQuery(parseQuery('file:aime24'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('file:depth6'), doc())).toBe(false);
    expect(matchesQuery(parseQuery('result:correct'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('result:wrong'), doc())).toBe(false);
    expect(matchesQuery(parseQuery('type:debate'), doc())).toBe(true);
    expect(matchesQuery(parseQuery('type:reflexion'), doc())).toBe(false);
    expect(matchesQuery(parseQuery('dom:high'), doc({ dom: 'high_extensive' }))).toBe(true);
    expect(matchesQuery(parseQuery('dom:low'), doc())).toBe(false);
    expect(matchesQuery(parseQuery('tag:case'), doc())).toBe(true);
  });

  it('finds exactly one of 240 slides by "aime24 row 130", where every slide mentions 130', () => {
    const docs = Array.from({ length: 240 }, (_, r) =>
      doc({ row: String(r), text: `question ${r} · aime24 · row ${r} · step 130` }),
    );
    expect(docs.filter((d) => matchesQuery(parseQuery('aime24 row 130'), d))).toHaveLength(1);
    expect(docs.filter((d) => matchesQuery(parseQuery('aime24 row:130'), d))).toHaveLength(1);
    // The plain words find every slide whose text holds "130".
    expect(docs.filter((d) => matchesQuery(parseQuery('aime24 "130"'), d)).length).toBeGreaterThan(100);
  });
});
