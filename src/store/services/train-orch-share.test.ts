import { describe, expect, it } from 'vitest';
import { decodeJsonLink, encodeJsonLink, LINK_BUDGET_CHARS } from '../../share/index.ts';
import { runInput } from './train-orch-share.fixture.ts';
import { buildOrchRunLink, readOrchRunLink, weightsInLink, weightsNote } from './train-orch-share.ts';

/**
 * An orchestrator run's share link: it round-trips every number the page shows, keeps within the
 * budget by leaving out the designs' text and then the designs (saying so), never carries a key, says
 * why the weights are not in it, and answers a broken, tampered or oversized link with a clear error.
 */

const BASE = 'https://example.org/baton/?x=1#/train';

describe('orchestrator run links', () => {
  it('round-trips the run: config, model, backend, curves, evaluation and designs', () => {
    const input = runInput();
    const link = buildOrchRunLink(input, BASE);
    expect(link.ok).toBe(true);
    if (!link.ok) return;
    expect(link.value.url.startsWith('https://example.org/baton/?x=1#r=1.')).toBe(true);
    expect(link.value).toMatchObject({ overBudget: false, iterations: 3, omitted: [] });
    const back = readOrchRunLink(link.value.url);
    expect(back?.ok).toBe(true);
    if (!back?.ok) return;
    const r = back.value;
    expect(r.config).toEqual(input.config);
    expect(r.model).toEqual(input.model);
    expect(r.backend).toEqual(input.backend);
    expect(r.evaluation).toEqual(input.evaluation);
    expect(r.curves.iteration).toEqual([1, 2, 3]);
    expect(r.curves.reward).toEqual(input.history.map((m) => m.reward));
    expect(r.curves.delegated).toEqual([null, 0.75, null]);
    expect(r.curves.rolloutTps).toEqual([1234.5, 1234.5, 1234.5]);
    expect(r.sampled.map((s) => s.design?.agents.length ?? null)).toEqual([2, null]);
    expect(r.sampled[0]?.text).toBe(input.sampled[0]?.text);
  });

  it('is told apart from a construction-policy run link, and an unreadable link is left to that reader', () => {
    expect(readOrchRunLink('#r=1.')).toBeNull();
    expect(readOrchRunLink(`#r=1.${'A'.repeat(40)}`)).toBeNull();
    const policy = encodeJsonLink({ format: 'baton.trainrun/1' }, 'r').fragment;
    expect(readOrchRunLink(policy)).toBeNull();
  });

  it('keeps within the budget: the designs’ text goes first, then the designs, and the link says so', () => {
    // Random-looking text does not compress: 1,500 characters of it decide which link fits.
    let seed = 7;
    const noise = Array.from({ length: 1_500 }, () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return String.fromCharCode(97 + ((seed >>> 16) % 26));
    }).join('');
    const noisy = runInput(3, noise);
    const all = buildOrchRunLink(noisy, BASE);
    if (!all.ok) throw new Error('no link');
    const shorter = buildOrchRunLink(noisy, BASE, all.value.chars - 1);
    if (!shorter.ok) throw new Error('no link');
    expect(shorter.value.omitted).toEqual(['sample-text']);
    expect(shorter.value.overBudget).toBe(false);
    const r = readOrchRunLink(shorter.value.url);
    expect(r?.ok && r.value.sampled.map((s) => s.text)).toEqual(['', '']);
    const tiny = buildOrchRunLink(noisy, BASE, 200);
    if (!tiny.ok) throw new Error('no link');
    expect(tiny.value.omitted).toEqual(['sample-text', 'samples']);
    expect(tiny.value.overBudget).toBe(true);
    const bare = readOrchRunLink(tiny.value.url);
    expect(bare?.ok && bare.value.sampled).toEqual([]);
  });

  it('never carries a key pasted into a design or its text', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
    const input = runInput(2, `plan: call with api_key=${key} then merge`);
    const agent = input.sampled[0]?.design?.agents[0];
    if (agent) agent.description = `use Authorization: Bearer ${key}`;
    const link = buildOrchRunLink(input, BASE);
    if (!link.ok) throw new Error('no link');
    const raw = decodeJsonLink(link.value.url, 'r');
    expect(JSON.stringify(raw)).not.toContain(key.slice(8));
    const r = readOrchRunLink(link.value.url);
    expect(r?.ok).toBe(true);
    if (r?.ok) {
      expect(r.value.sampled[0]?.text).toContain('[redacted]');
      expect(r.value.sampled[0]?.design?.agents[0]?.description).toContain('[redacted]');
    }
  });

  it('answers a tampered record with what is wrong, as text', () => {
    const link = buildOrchRunLink(runInput(), BASE);
    if (!link.ok) throw new Error('no link');
    const raw = decodeJsonLink(link.value.url, 'r');
    if (!raw.ok) throw new Error('no json');
    const value = raw.value as Record<string, Record<string, unknown>> & { sampled: unknown[] };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...value, config: { ...value.config, lr: -1 } }, /config\.lr/],
      [{ ...value, config: { ...value.config, apiBase: 'x' } }, /config.*apiBase|Unrecognized key/],
      [{ ...value, curves: { ...value.curves, reward: [1] } }, /curves\.reward: 1 values for 3 iterations/],
      [{ ...value, sampled: [...value.sampled, ...value.sampled, ...value.sampled] }, /sampled/],
      [{ ...value, format: 'baton.orchrun/2' }, /format/],
      [{ ...value, model: { ...value.model, params: 'many' } }, /model\.params/],
    ];
    for (const [doc, want] of cases) {
      const r = readOrchRunLink(encodeJsonLink(doc, 'r').fragment);
      expect(r?.ok).toBe(false);
      if (r && !r.ok) {
        expect(r.errors[0]?.code).toBe('E_TRAIN_LINK');
        expect(r.errors[0]?.message).toMatch(want);
      }
    }
  });

  it('refuses a run it cannot describe instead of making a link', () => {
    const bad = buildOrchRunLink({ ...runInput(), config: { groupSize: 1 } }, BASE);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]?.message).toMatch(/config\.groupSize/);
  });

  it('says why the weights are not in the link, in numbers', () => {
    const w = weightsInLink(230_412, 6_000);
    expect(w.chars).toBe(307_216);
    expect(w.overBy).toBe(6_000 + 307_216 - LINK_BUDGET_CHARS);
    expect(weightsNote(w)).toBe(
      'Weights not in the link: as 8-bit values the 230,412 parameters take 307,216 characters (one byte each, base64, before compression), 281,216 over the link budget of 32,000 characters.',
    );
    expect(weightsNote(weightsInLink(300, 6_000))).toMatch(/carry no weights.*400 characters/);
  });
});
