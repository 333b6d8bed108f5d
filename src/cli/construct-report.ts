/** The lines `baton construct` prints: each step, its answer, and what its run cost. */
import type { ConstructionStep } from '../core/trace.ts';
import type { IntermediateRun } from '../policy/index.ts';

const pct = (p: number): string =>
  p >= 0.995 ? p.toFixed(2) : p < 0.005 && p > 0 ? p.toExponential(0) : p.toFixed(2);

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
export const usd = (x: number): string => `$${x.toFixed(4)}`;

/** The boxed answer, else the last 60 characters on one line. */
export function shortAnswer(text: string | null): string {
  if (text === null || text.trim() === '') return '—';
  const boxed = /\\boxed\{([^{}]*)\}(?![\s\S]*\\boxed)/.exec(text);
  if (boxed) return `\\boxed{${boxed[1]}}`;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `…${flat.slice(-59)}` : flat;
}

/** The action, log-probability, top roles, edges and (when executed) the answer and reward of a step. */
export function describeStep(step: ConstructionStep, top = 3): string[] {
  const a = step.action;
  const what =
    a.kind === 'add'
      ? `ADD ${a.role} → ${a.agentId}${a.links.length > 0 ? ` ← ${a.links.join(', ')}` : ' (reads the question)'}`
      : a.kind === 'delete'
        ? `DELETE ${a.agentId}`
        : `EXIT → ${a.summarizerId ?? 'summariser'}`;
  const lines = [
    `step ${String(step.index).padStart(2)}  ${what}   log p = ${step.logProb === null ? 'n/a' : step.logProb.toFixed(3)}${step.chooser === 'user' ? ' (user)' : ''}`,
  ];
  const best = [...step.roleDistribution].sort((x, y) => y.p - x.p).slice(0, top);
  lines.push(`         roles: ${best.map((d) => `${d.action} ${pct(d.p)}`).join(' · ')}`);
  if (step.edgeProbabilities.length > 0) {
    const links = new Set(a.kind === 'add' ? a.links : []);
    lines.push(
      `         edges: ${step.edgeProbabilities.map((e) => `${e.from} ${pct(e.p)}${links.has(e.from) ? ' ✓' : ''}`).join(' · ')}`,
    );
  }
  if (step.intermediateCorrect !== undefined) {
    const ans = shortAnswer(step.intermediateAnswer ?? null);
    const status = step.intermediateRun?.status ?? 'completed';
    const verdict =
      status !== 'completed'
        ? status
        : step.intermediateCorrect === null
          ? 'ungraded'
          : step.intermediateCorrect
            ? 'correct'
            : 'wrong';
    const r = step.actionReward;
    lines.push(
      `         answer: ${ans} (${verdict})` +
        (r === null || r === undefined ? '' : `, reward ${r >= 0 ? '+' : ''}${r.toFixed(3)}`),
    );
  }
  return lines;
}

/** Fresh spend and cache hits: "2 calls, 310 tokens, $0.0001 · 3 cached". */
export function describeUsage(u: Omit<IntermediateRun, 'backend' | 'status' | 'problem'>): string {
  return `${plural(u.calls, 'call')}, ${u.promptTokens + u.completionTokens} tokens, ${usd(u.costUsd)} · ${u.cachedCalls} cached`;
}

/** The line under a step executed on a provider: what it cost, or why it did not run. */
export function describeRun(r: IntermediateRun): string {
  const why = r.problem === undefined ? '' : ` — ${r.problem.replace(/\s+/g, ' ').slice(0, 200)}`;
  return r.status === 'skipped'
    ? `         remote: skipped${why}`
    : `         remote: ${r.status} · ${describeUsage(r)}${r.status === 'completed' ? '' : why}`;
}
