import type { JSX } from 'react';
import type { ConstructionStep } from '../../core/trace.ts';
import type { BuildFrame } from '../../store/construction.ts';

function describe(step: ConstructionStep): string {
  const a = step.action;
  if (a.kind === 'add')
    return `ADD ${a.role} → ${a.agentId}${a.links.length > 0 ? ` ← ${a.links.join(', ')}` : ''}`;
  if (a.kind === 'delete') return `DELETE ${a.agentId}`;
  return 'EXIT → summarizer';
}

function label(step: ConstructionStep): string {
  const a = step.action;
  return a.kind === 'add' ? a.role : a.kind === 'delete' ? 'DELETE' : 'EXIT';
}

const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

/** One line of the answer: the last \boxed{…}, else the text's end. */
function shortAnswer(text: string): string {
  const boxed = /\\boxed\{([^{}]*)\}(?![\s\S]*\\boxed)/.exec(text);
  if (boxed) return boxed[1] ?? '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 48 ? `…${flat.slice(-47)}` : flat;
}

/** What producing a step's intermediate answer cost: calls sent, calls from the cache, tokens, USD. */
function runCost(run: NonNullable<ConstructionStep['intermediateRun']>): string {
  if (run.backend === 'simulated') return 'simulated';
  const tokens = run.promptTokens + run.completionTokens;
  return `${run.calls} sent · ${run.cachedCalls} cached · ${tokens} tok${run.costUsd > 0 ? ` · $${run.costUsd.toFixed(4)}` : ''}`;
}

/**
 * The recorded construction steps: action, chooser, π(choice), log-probability, and — when the
 * partial designs are executed — each step's intermediate answer, its grade, what producing it
 * cost, and the action-wise reward r_t. Undone steps that can be redone are listed dimmed.
 */
export function StepList({
  frames,
  cursor,
  executed,
}: {
  frames: BuildFrame[];
  cursor: number;
  /** The construction executes its partial designs (rows without a result show a dash). */
  executed: boolean;
}): JSX.Element {
  const rows = frames.slice(1);
  if (rows.length === 0) {
    return (
      <p className="muted small" data-testid="step-list-empty">
        No steps yet. Press <kbd>S</kbd> to sample one, <kbd>G</kbd> for the most probable action, or click a
        bar.
      </p>
    );
  }
  return (
    <ol className="step-list" data-testid="step-list">
      {rows.map((f, k) => {
        const step = f.step as ConstructionStep;
        const undone = k + 1 > cursor;
        const chosen = step.roleDistribution.find((d) => d.action === label(step));
        return (
          <li
            key={k}
            className={undone ? 'step-item undone' : 'step-item'}
            data-testid={undone ? 'step-undone' : 'step-item'}
            data-chooser={step.chooser}
          >
            <div className="step-line">
              <span className="step-index">{step.index + 1}</span>
              <span className="step-what">{describe(step)}</span>
              <span className={step.chooser === 'user' ? 'chip chip-user' : 'chip'}>{step.chooser}</span>
            </div>
            <div className="step-meta">
              <span title="π_node of the chosen action">π = {chosen ? chosen.p.toFixed(3) : '—'}</span>
              <span title="log π_node(choice) + Σ log Bernoulli(edge choice)" data-testid="step-logprob">
                log p = {step.logProb === null ? 'n/a' : step.logProb.toFixed(3)}
              </span>
              {step.edgeProbabilities.length > 0 && (
                <span title="π_edge per candidate link (✓ = linked)">
                  edges{' '}
                  {step.edgeProbabilities
                    .map(
                      (e) =>
                        `${e.p.toFixed(2)}${step.action.kind === 'add' && step.action.links.includes(e.from) ? '✓' : ''}`,
                    )
                    .join(' ')}
                </span>
              )}
            </div>
            {(executed || step.intermediateRun !== undefined) && (
              <div className="step-meta" data-testid="step-result">
                {f.pending ? (
                  <span className="muted">running the partial MAS…</span>
                ) : step.intermediateRun === undefined && step.intermediateCorrect === undefined ? (
                  <span className="muted">not executed</span>
                ) : (
                  <>
                    <span>
                      answer{' '}
                      <span className="mono">
                        {step.intermediateAnswer ? shortAnswer(step.intermediateAnswer) : '—'}
                      </span>
                    </span>
                    {step.intermediateCorrect === true && <span className="chip chip-ok">right</span>}
                    {step.intermediateCorrect === false && <span className="chip chip-bad">wrong</span>}
                    <span title="action-wise reward r_t" data-testid="step-reward">
                      r ={' '}
                      {step.actionReward === null || step.actionReward === undefined
                        ? 'n/a'
                        : signed(step.actionReward)}
                    </span>
                    {step.intermediateRun && (
                      <span
                        className={step.intermediateRun.status === 'completed' ? 'muted' : 'step-run-problem'}
                        title={step.intermediateRun.problem ?? 'what producing this answer cost'}
                        data-testid="step-run"
                        data-status={step.intermediateRun.status}
                      >
                        {step.intermediateRun.status === 'completed'
                          ? runCost(step.intermediateRun)
                          : `${step.intermediateRun.status}: ${step.intermediateRun.problem ?? ''}`}
                      </span>
                    )}
                  </>
                )}
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
