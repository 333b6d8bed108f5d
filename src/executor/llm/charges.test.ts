import { describe, expect, it } from 'vitest';
import { Budget } from './budget.ts';
import { CallCharge } from './charges.ts';
import type { ChatRequest } from './types.ts';

/** "What is 2+2?" is 12 characters: 3 tokens + 4 framing + 2 reply priming = 9 prompt tokens. */
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'What is 2+2?' }] };
const PROMPT = 9;
/** USD per million tokens: 1,000 in, 2,000 out, so a token costs $0.001 in and $0.002 out. */
const prices = { m: { inputPerMTok: 1_000, outputPerMTok: 2_000 } };

function reserved(budget: Budget, req: ChatRequest = request): CallCharge {
  const r = CallCharge.reserve(budget, req, prices);
  if (!r.ok) throw new Error(r.error.message);
  return r.charge;
}

describe('CallCharge', () => {
  it('reserves the prompt estimate plus maxTokens, or the default completion, at their price', () => {
    const budget = new Budget({ defaultCompletionTokens: 50 });
    reserved(budget, { ...request, maxTokens: 100 });
    expect(budget.reserved.tokens).toBe(PROMPT + 100);
    expect(budget.reserved.usd).toBeCloseTo(PROMPT * 0.001 + 100 * 0.002, 12);
    reserved(budget);
    expect(budget.reserved.tokens).toBe(PROMPT + 100 + PROMPT + 50);
  });

  it('refuses with the budget error and holds nothing when the worst case does not fit', () => {
    const budget = new Budget({ maxTokens: PROMPT + 99 });
    const r = CallCharge.reserve(budget, { ...request, maxTokens: 100 }, prices);
    expect(r).toMatchObject({
      ok: false,
      error: { kind: 'budget', limit: 'tokens', requested: PROMPT + 100 },
    });
    expect(budget.reserved).toEqual({ tokens: 0, usd: 0 });
  });

  it('charges a success its usage and cost plus the tokens of broken attempts, priced as output', () => {
    const budget = new Budget();
    reserved(budget).succeeded(
      { promptTokens: 10, completionTokens: 20, totalTokens: 30, estimated: false },
      0.05,
      12,
    );
    expect(budget.spent.tokens).toBe(42);
    expect(budget.spent.usd).toBeCloseTo(0.05 + 12 * 0.002, 12);
    expect(budget.reserved).toEqual({ tokens: 0, usd: 0 });
  });

  it('charges a success of an unpriced model no USD', () => {
    const budget = new Budget();
    const r = CallCharge.reserve(budget, { ...request, model: 'unpriced' }, prices);
    if (!r.ok) throw new Error(r.error.message);
    r.charge.succeeded(
      { promptTokens: 1, completionTokens: 1, totalTokens: 2, estimated: true },
      undefined,
      5,
    );
    expect(budget.spent).toEqual({ tokens: 7, usd: 0 });
  });

  it('charges a failure that showed text its prompt, the partial output and broken attempts', () => {
    const budget = new Budget();
    reserved(budget).failed({ content: 'Four, bec', completionTokensEstimate: 3 }, 4);
    expect(budget.spent.tokens).toBe(PROMPT + 3 + 4);
    expect(budget.spent.usd).toBeCloseTo(PROMPT * 0.001 + 7 * 0.002, 12);
  });

  it('charges a failure without partial output only the broken attempts, and releases one that spent nothing', () => {
    const budget = new Budget();
    reserved(budget).failed(undefined, 6);
    expect(budget.spent.tokens).toBe(6);
    expect(budget.spent.usd).toBeCloseTo(6 * 0.002, 12);
    reserved(budget).failed(undefined, 0);
    expect(budget.spent.tokens).toBe(6);
    expect(budget.reserved).toEqual({ tokens: 0, usd: 0 });
  });
});
