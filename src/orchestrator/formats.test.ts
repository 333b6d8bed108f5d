/**
 * The tiny format's prompt budget: the query keeps what the positions leave after the answer, and
 * no more than the query length the model was trained on when its config.json states one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { designBudget, tinyFormat } from './formats.ts';
import type { LoadedLm } from './load.ts';
import { TINY_TOKENS, trainedQueryTokens } from './tiny-format.ts';

const SHIPPED = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../models/baton-orchestrator-tiny/config.json'), 'utf8'),
) as unknown;

/** One id per character (markers are one id each): enough to count what the prompt keeps. */
function fakeLm(config: Record<string, unknown>): LoadedLm {
  const markers: string[] = [TINY_TOKENS.domLow, TINY_TOKENS.domHigh, TINY_TOKENS.design];
  const encode = (t: string): number[] => {
    const m = markers.indexOf(t);
    return m >= 0 ? [1000 + m] : [...t].map((c) => c.charCodeAt(0));
  };
  return { model: { config }, tokenizer: { encode } } as unknown as LoadedLm;
}

const trainedOn = (n: number) => ({ baton: { provenance: { training: { maxQueryTokens: n } } } });
const query = Array.from({ length: 300 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');

describe('tinyFormat prompt budget', () => {
  it("reads the trained query length from the shipped model's config, and null where none is stated", () => {
    expect(trainedQueryTokens(SHIPPED)).toBe(64);
    expect(trainedQueryTokens({ n_positions: 256 })).toBeNull();
    expect(trainedQueryTokens(trainedOn(-3))).toBeNull();
    expect(trainedQueryTokens(null)).toBeNull();
  });

  it('keeps the last trained-length tokens of a long query when the config states it', () => {
    const p = tinyFormat().prompt(query, 'high', fakeLm({ n_positions: 4096, ...trainedOn(64) }), 384);
    expect(p.kind).toBe('ids');
    const ids = p.kind === 'ids' ? p.ids : [];
    expect(ids.length).toBe(64 + 2);
    expect(ids.slice(1, -1)).toEqual([...query.slice(-64)].map((c) => c.charCodeAt(0)));
    expect(ids[0]).toBe(1001);
    expect(ids.at(-1)).toBe(1002);
  });

  it('without it, the query keeps what the positions leave after the answer', () => {
    const p = tinyFormat().prompt(query, 'low', fakeLm({ n_positions: 600 }), 384);
    expect(p.kind === 'ids' ? p.ids.length : 0).toBe(600 - 384 - 2 + 2);
    // A trained length above what the positions leave does not lengthen the query.
    const q = tinyFormat().prompt(query, 'low', fakeLm({ n_positions: 600, ...trainedOn(250) }), 384);
    expect(q.kind === 'ids' ? q.ids.length : 0).toBe(600 - 384 - 2 + 2);
  });
});

describe('designBudget', () => {
  it('lets the tiny format hold as many agents as its training designs (6 in the 190 tokens the tiny model leaves)', () => {
    expect(designBudget(190, 'tiny').maxAgents).toBe(6);
    expect(designBudget(190, 'tiny').maxTokens).toBe(190);
  });

  it('keeps hub designs within their larger per-agent cost, and never below one agent or above eight', () => {
    const hub = designBudget(190, 'hub');
    expect(hub.maxAgents).toBe(2);
    expect(hub.fieldTokens.text).toBe(11);
    expect(designBudget(10, 'hub').maxAgents).toBe(1);
    expect(designBudget(10, 'tiny').maxAgents).toBe(1);
    expect(designBudget(100_000, 'tiny').maxAgents).toBe(8);
    expect(designBudget(100_000, 'hub').fieldTokens.text).toBe(256);
  });
});
