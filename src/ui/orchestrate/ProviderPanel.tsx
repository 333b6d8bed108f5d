import type { JSX } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { orchQueryOf, orchTaskOf, type OrchGeneration } from '../../store/slices/orchestrate.ts';
import { designOutputOf } from '../../store/slices/orchestrate-provider.ts';
import { providerDesignPreview } from '../../store/slices/orchestrate-provider-preview.ts';
import { useBaton } from '../../store/store.ts';

/**
 * Who writes the design: the model in this tab, or the Settings provider's model. With the
 * provider: which endpoint and model, the repair turns (set in Settings), and before the run the
 * most the design may spend against the Settings limits it shares with the run's agents.
 */

export function OrchestratorChoice(): JSX.Element {
  const who = useBaton((s) => s.orchDraft.orchestrator);
  const setDraft = useBaton((s) => s.setOrchDraft);
  const busy = useBaton((s) => s.orchGen?.status === 'running');
  return (
    <fieldset className="orch-box" disabled={busy} data-testid="orch-orchestrator">
      <legend>Orchestrator</legend>
      <label className="orch-radio">
        <input
          type="radio"
          name="orch-orchestrator"
          checked={who === 'model'}
          onChange={() => setDraft({ orchestrator: 'model' })}
          data-testid="orch-orchestrator-model"
        />{' '}
        In-tab model
      </label>
      <label className="orch-radio">
        <input
          type="radio"
          name="orch-orchestrator"
          checked={who === 'provider'}
          onChange={() => setDraft({ orchestrator: 'provider' })}
          data-testid="orch-orchestrator-provider"
        />{' '}
        Provider (from Settings)
      </label>
    </fieldset>
  );
}

const money = (usd: number): string => `$${usd.toFixed(4)}`;

export function ProviderPanel(): JSX.Element {
  const { provider, model, repairTurns, output } = useBaton(
    useShallow((s) => ({
      provider: s.provider,
      model: s.connections[s.provider].model,
      repairTurns: s.repairTurns,
      output: designOutputOf(s),
    })),
  );
  const preview = useBaton(
    useShallow((s) => {
      const t = orchTaskOf(s.orchDraft);
      return providerDesignPreview(s, t.ok ? orchQueryOf(t.task) : '', s.orchDraft.dom);
    }),
  );
  return (
    <section className="orch-box" data-testid="orch-provider">
      <p>
        <strong className="mono">{model || '(no model)'}</strong> on <span className="mono">{provider}</span>{' '}
        is asked for the design{' '}
        <span data-testid="orch-design-output">
          {output === 'json-schema'
            ? "in the design's JSON schema (structured output; XML again if the server refuses the schema, as the attempts below then say)"
            : 'in MAS-Orchestra XML'}
        </span>
        ; an invalid design goes back to it with the validator&apos;s numbered problems, up to{' '}
        <span data-testid="orch-repair-turns">{repairTurns}</span> repair{' '}
        {repairTurns === 1 ? 'turn' : 'turns'} (Settings). <a href="#/settings">Settings</a>
      </p>
      <p className="muted small" data-testid="orch-provider-budget">
        At most {preview.calls} {preview.calls === 1 ? 'call' : 'calls'}, up to {preview.tokens} tokens
        {preview.usd !== undefined ? ` (${money(preview.usd)})` : ' (no price known for this model)'}, counted
        against the run&apos;s limits:{' '}
        {preview.limitTokens !== null ? `${preview.limitTokens} tokens` : 'no token limit'},{' '}
        {preview.limitUsd !== null ? money(preview.limitUsd) : 'no dollar limit'}. A call that could cross
        them is not sent.
      </p>
    </section>
  );
}

/** The provider's attempts: each one's tokens, cost, time and problems. */
export function AttemptsView({ g }: { g: OrchGeneration }): JSX.Element | null {
  const attempts = g.attempts ?? [];
  if (!g.provider || (attempts.length === 0 && g.status !== 'running')) return null;
  const d = g.result?.designer;
  const used = d?.kind === 'orchestrator' ? d.usedAttempt : undefined;
  // The orchestrator's own calls, summed (the designer record's `usage`).
  const usage = d?.kind === 'orchestrator' ? d.usage : undefined;
  return (
    <section
      className="orch-attempts"
      data-testid="orch-attempts"
      data-cost-usd={usage?.costUsd ?? ''}
      data-tokens={usage ? usage.promptTokens + usage.completionTokens : ''}
    >
      <h3 className="orch-h">
        Attempts ({attempts.length} of at most{' '}
        {g.provider.repairTurns + 1 + (d?.kind === 'orchestrator' && d.outputFallback ? 1 : 0)})
      </h3>
      {d?.kind === 'orchestrator' && d.output && (
        <p className="muted small" data-testid="orch-attempts-output" data-output={d.output}>
          Written {d.output === 'json-schema' ? "in the design's JSON schema" : 'in MAS-Orchestra XML'}
          {d.outputFallback ? `: ${d.outputFallback}` : ''}
        </p>
      )}
      <ol>
        {attempts.map((a, i) => (
          <li key={i} data-testid="orch-attempt" data-valid={a.valid ? 'true' : 'false'}>
            <span className={`badge ${a.valid ? 'badge-ok' : a.error ? 'badge-bad' : 'badge-warn'}`}>
              {a.valid ? (used === i ? 'valid · used' : 'valid') : a.error ? 'call failed' : 'invalid'}
            </span>{' '}
            <span className="muted small">
              {a.promptTokens + a.completionTokens} tokens
              {a.costUsd !== undefined ? ` · ${money(a.costUsd)}` : ''} · {(a.latencyMs / 1000).toFixed(2)} s
            </span>
            {a.error && <p className="small">{a.error}</p>}
            {a.problems.length > 0 && (
              <ol className="small orch-attempt-problems">
                {a.problems.map((p, j) => (
                  <li key={j}>{p}</li>
                ))}
              </ol>
            )}
          </li>
        ))}
        {g.status === 'running' && (
          <li className="muted" data-testid="orch-attempt-running">
            attempt {(g.attempt ?? 0) + 1}: writing…
          </li>
        )}
      </ol>
    </section>
  );
}
