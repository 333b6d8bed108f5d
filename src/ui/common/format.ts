/**
 * Every number, date and count format the UI shows (graph, inspector, task panel, timeline, lists),
 * in one module so a value reads the same on every page.
 */

/** Short, locale-aware date for lists; the raw value when it is not a date. */
// One formatter each, made on first use: `toLocaleString` with options builds a new one per call,
// which a list of thousands of rows pays for on every render.
let dateFormat: Intl.DateTimeFormat | null = null;
let numberFormat: Intl.NumberFormat | null = null;

export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  dateFormat ??= new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  return dateFormat.format(d);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  numberFormat ??= new Intl.NumberFormat();
  return `${numberFormat.format(n)} ${n === 1 ? one : many}`;
}

/**
 * How many agents a design has, saying when the count includes the summariser that EXIT adds (or
 * any SummarizerAgent): "3 agents (incl. summariser)". The Build page counts the agents the policy
 * added, so its "2 agents" and this "3 agents (incl. summariser)" describe the same design.
 */
export function agentCount(agents: readonly { type: string }[]): string {
  const summarisers = agents.filter((a) => a.type === 'SummarizerAgent').length;
  return agentCountOf(agents.length, summarisers);
}

/** `agentCount` from a count and how many of those agents are summarisers. */
export function agentCountOf(total: number, summarisers: number): string {
  const base = plural(total, 'agent');
  if (summarisers === 0 || summarisers >= total) return base;
  return `${base} (incl. ${summarisers === 1 ? 'summariser' : `${summarisers} summarisers`})`;
}

/**
 * What a total reads as when its source did not record it (an imported case page publishes no
 * tokens, cost or timings): never "0 tok", "$0" or "0 ms", which would claim free and instant.
 * Zeros a run here did record stay zeros (see `recordedTotals` in src/view/totals.ts).
 */
export const NOT_RECORDED = 'not recorded';

/** `format(value)` when the value was recorded, else "not recorded". */
export function ifRecorded<T>(recorded: boolean, value: T, format: (v: T) => string): string {
  return recorded ? format(value) : NOT_RECORDED;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Below this a cost is shown as "<$0.000001": a millionth of a dollar is far under any real call. */
const COST_FLOOR = 0.000_001;

/**
 * US dollars, always in plain decimals (never `9.8e-5`, which few readers parse at a glance):
 * - under a cent, two significant digits without trailing zeros: `$0.000098`, `$0.0012`, `$0.005`;
 * - under $1, three decimals: `$0.123`; from $1 on, cents: `$12.50`, `$1,234.00`;
 * - `$0` for nothing and `<$0.000001` below a millionth, so a tiny cost never reads as free.
 */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return '$0';
  if (usd < COST_FLOOR) return '<$0.000001';
  if (usd < 0.01) {
    const digits = 1 - Math.floor(Math.log10(usd));
    return `$${usd.toFixed(digits).replace(/0+$/, '').replace(/\.$/, '')}`;
  }
  if (usd < 1) return `$${usd.toFixed(3)}`;
  return `$${usd.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** Milliseconds as "850 ms", "12.3 s" or "4 min 5 s". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}
