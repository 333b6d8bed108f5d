import { useMemo, type JSX } from 'react';
import {
  constraintStatsOf,
  partialDesign,
  tokensPerSecond,
  type OrchGeneration,
} from '../../store/slices/orchestrate.ts';
import { directAnswerSoFar } from '../../store/slices/orchestrate-direct.ts';
import { useBaton } from '../../store/store.ts';
import { LiveDag } from './LiveDag.tsx';
import { AttemptsView } from './ProviderPanel.tsx';

/**
 * The generation as it happens: the thinking and the design channels as text (model output is
 * never HTML), the DAG growing as agents and edges are decoded, tokens, speed, and after the end
 * the constraint statistics of the designer record.
 */

const STATUS_WORDS: Record<OrchGeneration['status'], string> = {
  running: 'writing',
  done: 'finished',
  interrupted: 'interrupted: the text written so far is kept',
  error: 'failed: the text written so far is kept',
};

const STATUS_CLASS: Record<OrchGeneration['status'], string> = {
  running: 'badge-muted',
  done: 'badge-ok',
  interrupted: 'badge-warn',
  error: 'badge-bad',
};

/** `maskedSteps` → "masked steps". */
const statName = (k: string): string => k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

function Stats({ g }: { g: OrchGeneration }): JSX.Element {
  const tps = tokensPerSecond(g, Date.now());
  const stats = constraintStatsOf(g);
  const first = g.result
    ? g.result.timings.firstTokenMs
    : g.firstTokenAt !== null
      ? g.firstTokenAt - g.startedAt
      : null;
  return (
    <p className="orch-stats" data-testid="orch-stats">
      <span
        className={`badge ${STATUS_CLASS[g.status]}`}
        data-testid="orch-gen-status"
        data-status={g.status}
      >
        {STATUS_WORDS[g.status]}
      </span>{' '}
      <span data-testid="orch-tokens">{g.tokens} tokens</span>
      {tps !== null && <span data-testid="orch-tps"> · {tps.toFixed(1)} tokens/s</span>}
      {first !== null && <span> · first token after {(first / 1000).toFixed(2)} s</span>}
      <span>
        {' '}
        ·{' '}
        {g.model
          ? `${g.model.id} (${g.model.dtype}, ${g.model.device}) · ${g.settings.constrained ? 'constrained' : 'unconstrained'}`
          : `${g.provider?.model ?? ''} on ${g.provider?.where ?? ''} · attempt ${(g.attempt ?? 0) + 1}`}
        {g.settings.temperature > 0 ? ` · T=${g.settings.temperature}, seed ${g.settings.seed}` : ' · greedy'}
      </span>
      {stats && (
        <span data-testid="orch-constraint-stats">
          {' · '}
          {Object.entries(stats)
            .map(([k, v]) => `${statName(k)} ${Number.isInteger(v) ? v : v.toFixed(1)}`)
            .join(' · ')}
        </span>
      )}
    </p>
  );
}

export function OutputPanel(): JSX.Element | null {
  const g = useBaton((s) => s.orchGen);
  const interrupt = useBaton((s) => s.interruptOrchestrate);
  return g ? <OutputView g={g} onInterrupt={interrupt} /> : null;
}

/** The generation `g` (the panel's body, given its state). */
export function OutputView({ g, onInterrupt }: { g: OrchGeneration; onInterrupt: () => void }): JSX.Element {
  const partial = useMemo(() => partialDesign(g.text), [g.text]);
  const direct = useMemo(() => directAnswerSoFar(g.text), [g.text]);
  return (
    <section className="orch-output" data-testid="orch-output" data-started={g.startedAt}>
      <div className="orch-output-head">
        <Stats g={g} />
        {g.status === 'running' && (
          <button type="button" className="btn btn-danger" onClick={onInterrupt} data-testid="orch-interrupt">
            Interrupt
          </button>
        )}
      </div>
      <div className="orch-streams">
        <div className="orch-stream">
          <h3 className="orch-h">Thinking</h3>
          <pre className="orch-pre" data-testid="orch-thinking">
            {partial.thinking || (g.status === 'running' ? '…' : '(none)')}
          </pre>
          <h3 className="orch-h">Design</h3>
          <pre className="orch-pre" data-testid="orch-design-text">
            {partial.designText || (g.status === 'running' ? '…' : '(none)')}
          </pre>
        </div>
        <LiveDag design={partial.design} direct={direct} />
      </div>
      <AttemptsView g={g} />
    </section>
  );
}
