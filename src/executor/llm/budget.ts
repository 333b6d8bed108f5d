/**
 * A token and cost budget shared by every call of a run. Before sending, a call reserves its
 * worst case (estimated prompt + max completion tokens, and their price); the call is refused
 * with a 'budget' error if that would cross a limit. After the call, the reservation is
 * committed with the actual usage (or released if nothing was spent), so parallel agents
 * cannot overshoot together. When a request sets no max tokens, its completion is reserved
 * at `defaultCompletionTokens` and the actual usage may exceed it: the limit is then enforced
 * on the next call.
 */
import type { LlmError } from './errors.ts';

export interface BudgetLimits {
  /** Upper bound on prompt + completion tokens over all calls. */
  maxTokens?: number;
  /** Upper bound on spend, USD. */
  maxUsd?: number;
  /** Completion tokens reserved for a request without max tokens. Default 1024. */
  defaultCompletionTokens?: number;
}

export interface Amount {
  tokens: number;
  /** USD; undefined when the model's price is unknown. */
  usd: number | undefined;
}

export interface Reservation {
  readonly id: number;
  readonly tokens: number;
  readonly usd: number;
}

export type ReserveResult = { ok: true; reservation: Reservation } | { ok: false; error: LlmError };

const format = (usd: number): string => `$${usd.toFixed(4)}`;

/**
 * " (S spent, H reserved by N calls in flight)" when calls in flight hold part of a budget, so a
 * refusal does not read as if the budget had been spent; empty otherwise.
 */
export function heldNote(spent: number, held: number, calls: number): string {
  if (held <= 0) return '';
  return ` (${spent} spent, ${held} reserved by ${calls} call${calls === 1 ? '' : 's'} in flight)`;
}

export class Budget {
  readonly limits: Readonly<BudgetLimits>;
  private spentTokens = 0;
  private spentUsd = 0;
  private readonly open = new Map<number, Reservation>();
  private nextId = 1;

  constructor(limits: BudgetLimits = {}) {
    this.limits = { ...limits };
  }

  get defaultCompletionTokens(): number {
    return this.limits.defaultCompletionTokens ?? 1024;
  }

  /** Committed spend so far. */
  get spent(): { tokens: number; usd: number } {
    return { tokens: this.spentTokens, usd: this.spentUsd };
  }

  /** Held by calls in flight. */
  get reserved(): { tokens: number; usd: number } {
    let tokens = 0;
    let usd = 0;
    for (const r of this.open.values()) {
      tokens += r.tokens;
      usd += r.usd;
    }
    return { tokens, usd };
  }

  /** Left under each limit after spend and reservations; Infinity when there is no limit. */
  remaining(): { tokens: number; usd: number } {
    const held = this.reserved;
    return {
      tokens: (this.limits.maxTokens ?? Infinity) - this.spentTokens - held.tokens,
      usd: (this.limits.maxUsd ?? Infinity) - this.spentUsd - held.usd,
    };
  }

  reserve(amount: Amount, model: string): ReserveResult {
    const left = this.remaining();
    const held = this.reserved;
    if (this.limits.maxTokens !== undefined && amount.tokens > left.tokens) {
      return {
        ok: false,
        error: {
          kind: 'budget',
          limit: 'tokens',
          requested: amount.tokens,
          remaining: Math.max(0, left.tokens),
          attempts: 0,
          message: `Not sent: this call could use up to ${amount.tokens} tokens, but only ${Math.max(0, left.tokens)} of the ${this.limits.maxTokens} token budget are left${heldNote(this.spentTokens, held.tokens, this.open.size)}.`,
        },
      };
    }
    if (this.limits.maxUsd !== undefined) {
      if (amount.usd === undefined) {
        return {
          ok: false,
          error: {
            kind: 'budget',
            limit: 'usd',
            requested: null,
            remaining: Math.max(0, left.usd),
            attempts: 0,
            message: `Not sent: there is a cost limit, but no price is known for model "${model}". Add it to the price table or remove the cost limit.`,
          },
        };
      }
      if (amount.usd > left.usd) {
        return {
          ok: false,
          error: {
            kind: 'budget',
            limit: 'usd',
            requested: amount.usd,
            remaining: Math.max(0, left.usd),
            attempts: 0,
            message: `Not sent: this call could cost up to ${format(amount.usd)}, but only ${format(Math.max(0, left.usd))} of the ${format(this.limits.maxUsd)} budget is left.`,
          },
        };
      }
    }
    const reservation: Reservation = { id: this.nextId++, tokens: amount.tokens, usd: amount.usd ?? 0 };
    this.open.set(reservation.id, reservation);
    return { ok: true, reservation };
  }

  /** Replaces a reservation with what was actually spent. Settling twice is a no-op. */
  commit(reservation: Reservation, actual: Amount): void {
    if (!this.open.delete(reservation.id)) return;
    this.spentTokens += actual.tokens;
    this.spentUsd += actual.usd ?? 0;
  }

  /** Drops a reservation without spending (the call failed before using tokens). */
  release(reservation: Reservation): void {
    this.open.delete(reservation.id);
  }
}
