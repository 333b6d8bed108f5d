/**
 * What one call is charged against a `Budget`. Before sending, it reserves its worst case:
 * estimated prompt tokens + `maxTokens` (or the budget's `defaultCompletionTokens`), and
 * their price. After, the reservation is replaced by what was spent: the reported usage plus
 * the tokens broken attempts may have been billed; for a failed call that had shown text, its
 * prompt and partial output too. A call that spent nothing releases it. Pure: no fetch, no timers.
 */
import type { Budget, Reservation } from './budget.ts';
import type { LlmError, PartialOutput } from './errors.ts';
import { costOf, type PriceTable } from './pricing.ts';
import type { ChatRequest } from './types.ts';
import { estimatePromptTokens, type Usage } from './usage.ts';

/** A reservation held for one call, settled once with `succeeded` or `failed`. */
export class CallCharge {
  private constructor(
    private readonly budget: Budget,
    private readonly reservation: Reservation,
    /** The requested model, whose price applies to tokens without a reported model. */
    private readonly model: string,
    private readonly prices: PriceTable,
    private readonly promptEstimate: number,
  ) {}

  /** Reserves the call's worst case; the error (`kind: 'budget'`) means: do not send it. */
  static reserve(
    budget: Budget,
    request: ChatRequest,
    prices: PriceTable,
  ): { ok: true; charge: CallCharge } | { ok: false; error: LlmError } {
    const promptEstimate = estimatePromptTokens(request.messages);
    const completionCap = request.maxTokens ?? budget.defaultCompletionTokens;
    const reserved = budget.reserve(
      {
        tokens: promptEstimate + completionCap,
        usd: costOf({ promptTokens: promptEstimate, completionTokens: completionCap }, request.model, prices),
      },
      request.model,
    );
    if (!reserved.ok) return reserved;
    return {
      ok: true,
      charge: new CallCharge(budget, reserved.reservation, request.model, prices, promptEstimate),
    };
  }

  /**
   * Charges a completed call: its `usage` at `costUsd` (undefined: price unknown, charged as
   * 0), plus `spentTokens` of earlier broken attempts priced as output.
   */
  succeeded(usage: Usage, costUsd: number | undefined, spentTokens: number): void {
    const wasted = { promptTokens: 0, completionTokens: spentTokens };
    this.budget.commit(this.reservation, {
      tokens: usage.totalTokens + spentTokens,
      usd: (costUsd ?? 0) + (costOf(wasted, this.model, this.prices) ?? 0),
    });
  }

  /**
   * Charges a failed call: the prompt and the partial output when text had been delivered,
   * plus `spentTokens` of broken attempts; releases the reservation when that is nothing.
   */
  failed(partial: PartialOutput | undefined, spentTokens: number): void {
    const used = {
      promptTokens: partial ? this.promptEstimate : 0,
      completionTokens: spentTokens + (partial?.completionTokensEstimate ?? 0),
    };
    const tokens = used.promptTokens + used.completionTokens;
    if (tokens > 0)
      this.budget.commit(this.reservation, { tokens, usd: costOf(used, this.model, this.prices) });
    else this.budget.release(this.reservation);
  }
}
