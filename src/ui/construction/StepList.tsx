import type { JSX } from 'react';
import type { ConstructionStep } from '../../core/trace.ts';
import type { BuildFrame } from '../../store/construction.ts';
import type { BuildDecoding } from '../../store/slices/build.ts';
import type { StepReward } from '../../store/slices/build-reward.ts';

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

/** Who chose the step: the user's pick, or the policy sampling or taking the argmax. */
export function chooserLabel(
  step: ConstructionStep,
  decoding: BuildDecoding | undefined,
): { text: string; title: string } {
  if (step.chooser === 'user')
    return { text: 'you', title: 'Your pick (a bar or toggled links) overrode the policy' };
  if (decoding === 'greedy')
    return { text: 'greedy', title: 'The policy’s most probable action, links with p ≥ 0.5' };
  if (decoding === 'sampled') return { text: 'sampled', title: 'Sampled from the policy at τ' };
  return { text: 'policy', title: 'Chosen by the policy' };
}

/** r_t with its case and numbers, or n/a with the reason; the discounted return from the step. */
function RewardDetail({
  reward,
  value,
}: {
  reward: StepReward | undefined;
  value: number | null;
}): JSX.Element {
  const shown = value === null ? 'n/a' : signed(value);
  if (!reward) return <span data-testid="step-reward">r = {shown}</span>;
  return (
    <details
      className="step-reward"
      data-testid="step-reward-detail"
      data-na={value === null ? 'true' : 'false'}
    >
      <summary title="action-wise reward r_t: open for its terms">
        <span data-testid="step-reward">r = {shown}</span>
        {value === null && reward.why && (
          <span className="muted" data-testid="step-reward-why">
            {' '}
            · {reward.why.split(':')[0]}
          </span>
        )}
      </summary>
      <div className="step-reward-terms" data-testid="step-reward-terms">
        {value === null ? (
          <div>n/a — {reward.why}</div>
        ) : (
          <>
            {reward.change && <div>{reward.change}</div>}
            {reward.formula && <div className="mono">r_t = {reward.formula}</div>}
            {reward.returnFromHere !== null && (
              <div className="mono" title="the action-wise term of HRPO's advantage A_t, γ as in Train">
                Σ_k≥t γ^(k−t) r_k = {reward.returnFromHere.toFixed(3)}
              </div>
            )}
          </>
        )}
      </div>
    </details>
  );
}

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
  rewards,
  decodings,
}: {
  frames: BuildFrame[];
  cursor: number;
  /** The construction executes its partial designs (rows without a result show a dash). */
  executed: boolean;
  /** Each step's r_t read-out (`stepRewards`), in step order; without it r is shown bare. */
  rewards?: StepReward[];
  /** How the policy drew each step (`buildDecodings`), in step order. */
  decodings?: BuildDecoding[];
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
        const who = chooserLabel(step, decodings?.[k]);
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
              <span
                className={step.chooser === 'user' ? 'chip chip-user' : 'chip'}
                title={who.title}
                data-testid="step-chooser"
              >
                {who.text}
              </span>
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
                  <span className="muted">running the partial MAS… (r = n/a until it answers)</span>
                ) : step.intermediateRun === undefined && step.intermediateCorrect === undefined ? (
                  <span className="muted" data-testid="step-reward-why">
                    not executed: r = n/a (r_t needs the partial MAS’s answer)
                  </span>
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
                    <RewardDetail reward={rewards?.[k]} value={step.actionReward ?? null} />
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
