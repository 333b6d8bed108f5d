import { describe, expect, it } from 'vitest';
import { Budget } from './budget.ts';
import { redactSecrets, redactText } from './errors.ts';
import { DEFAULT_PRICES, costOf, priceOf } from './pricing.ts';
import { PROVIDER_PRESETS, normalizeBaseUrl } from './providers.ts';
import { DEFAULT_RETRY_POLICY, backoffDelay, isRetryableStatus, parseRetryAfter } from './retry.ts';
import { estimatePromptTokens, estimateTokens } from './usage.ts';

describe('retry policy', () => {
  it('draws full-jitter delays below min(cap, base * 2^n)', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(0, policy, () => 0.999)).toBe(99);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(400);
    expect(backoffDelay(10, policy, () => 0.5)).toBe(500);
    expect(backoffDelay(2, policy, () => 0)).toBe(0);
  });

  it('parses Retry-After as seconds or an HTTP date, never negative', () => {
    const now = Date.parse('2026-11-22T05:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter('0.25', now)).toBe(250);
    expect(parseRetryAfter('Sun, 22 Nov 2026 05:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 04:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('retries 408, 409, 429 and 5xx only', () => {
    expect([400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503].filter(isRetryableStatus)).toEqual([
      408, 409, 429, 500, 502, 503,
    ]);
  });
});

describe('prices', () => {
  it('finds exact, vendor-prefixed and dated model names, preferring the longest match', () => {
    expect(priceOf('gpt-4o-mini', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf('openai/gpt-4o-mini', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-mini-2024-07-18', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-2024-08-06', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceOf('my-local-model', DEFAULT_PRICES)).toBeUndefined();
  });

  it('computes USD from per-million prices, and undefined for unknown models', () => {
    const table = { m: { inputPerMTok: 2, outputPerMTok: 8 } };
    expect(costOf({ promptTokens: 1_000_000, completionTokens: 500_000 }, 'm', table)).toBe(6);
    expect(costOf({ promptTokens: 10, completionTokens: 10 }, 'other', table)).toBeUndefined();
  });
});

describe('Budget', () => {
  it('holds reservations until commit or release', () => {
    const budget = new Budget({ maxTokens: 100 });
    const a = budget.reserve({ tokens: 60, usd: undefined }, 'm');
    expect(a.ok).toBe(true);
    const b = budget.reserve({ tokens: 50, usd: undefined }, 'm');
    expect(b).toMatchObject({
      ok: false,
      error: { kind: 'budget', limit: 'tokens', requested: 50, remaining: 40 },
    });
    // Nothing is spent yet: the refusal says the rest is held by the call in flight.
    expect(b.ok ? '' : b.error.message).toContain(
      'only 40 of the 100 token budget are left (0 spent, 60 reserved by 1 call in flight)',
    );
    if (!a.ok) return;
    budget.commit(a.reservation, { tokens: 30, usd: undefined });
    budget.commit(a.reservation, { tokens: 30, usd: undefined });
    expect(budget.spent.tokens).toBe(30);
    expect(budget.remaining().tokens).toBe(70);
    const c = budget.reserve({ tokens: 70, usd: undefined }, 'm');
    expect(c.ok).toBe(true);
    if (c.ok) budget.release(c.reservation);
    expect(budget.remaining().tokens).toBe(70);
  });

  it('refuses over the USD limit with amounts in the message', () => {
    const budget = new Budget({ maxUsd: 0.01 });
    const r = budget.reserve({ tokens: 10, usd: 0.02 }, 'm');
    expect(r).toMatchObject({ ok: false, error: { kind: 'budget', limit: 'usd' } });
    if (!r.ok) expect(r.error.message).toContain('$0.0200');
  });
});

describe('redaction', () => {
  it('removes the key and bearer tokens from nested strings', () => {
    const key = 'sk-abcdef123456';
    const error = {
      message: `bad key ${key}`,
      nested: { list: [`Bearer ${key}`, 'Authorization: Bearer xyz'] },
    };
    const out = JSON.stringify(redactSecrets(error, [key]));
    expect(out).not.toContain(key);
    expect(out).not.toContain('xyz');
    expect(redactText('short a key', ['a'])).toBe('short a key');
  });
});

describe('estimates', () => {
  it('counts ceil(chars / 4) tokens plus per-message framing', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimatePromptTokens([{ role: 'user', content: 'abcd' }])).toBe(2 + 4 + 1);
  });
});

describe('providers', () => {
  it('has a valid base URL for every preset except custom', () => {
    for (const preset of Object.values(PROVIDER_PRESETS)) {
      if (preset.id === 'custom') continue;
      expect(normalizeBaseUrl(preset.baseUrl)).toEqual({ ok: true, url: preset.baseUrl });
    }
    expect(PROVIDER_PRESETS.ollama.baseUrl).toBe('http://localhost:11434/v1');
    expect(PROVIDER_PRESETS.vllm.baseUrl).toBe('http://localhost:8000/v1');
  });

  it('normalizes base URLs and explains what is wrong with bad ones', () => {
    expect(normalizeBaseUrl(' https://x.test/v1/ ')).toEqual({ ok: true, url: 'https://x.test/v1' });
    expect(normalizeBaseUrl('x.test')).toMatchObject({ ok: false });
    expect(normalizeBaseUrl('https://user:sk-1@x.test/v1')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/key field/),
    });
    expect(normalizeBaseUrl('https://x.test/v1?key=1')).toMatchObject({ ok: false });
  });
});
