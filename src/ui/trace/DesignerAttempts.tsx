import type { JSX } from 'react';
import type { Designer } from '../../core/trace.ts';
import { Disclosure } from './Disclosure.tsx';

/**
 * A provider-written design's calls, on the trace page: where it was sent, each attempt (valid or
 * not, its tokens, cost and time, the validator's problems or the call's error, its raw output as
 * text), which attempt was used or why none was, and what the orchestrator spent in all.
 */
export function DesignerAttempts({ designer }: { designer: Designer }): JSX.Element | null {
  if (designer.kind !== 'orchestrator' || !designer.attempts || designer.attempts.length === 0) return null;
  const u = designer.usage;
  const used = designer.usedAttempt;
  return (
    <div className="designer-attempts" data-testid="designer-attempts">
      <dl className="kv">
        {designer.provider && (
          <div className="kv-row">
            <dt>Provider</dt>
            <dd>{designer.provider}</dd>
          </div>
        )}
        <div className="kv-row">
          <dt>Output</dt>
          <dd data-testid="designer-output">
            {designer.output === 'json-schema'
              ? "the design's JSON schema (response_format)"
              : 'MAS-Orchestra XML'}
            {designer.outputFallback ? ` · ${designer.outputFallback}` : ''}
          </dd>
        </div>
        <div className="kv-row">
          <dt>Attempts</dt>
          <dd data-testid="designer-attempts-summary">
            {designer.attempts.length}
            {designer.repairTurns !== undefined ? ` of at most ${designer.repairTurns + 1}` : ''} ·{' '}
            {used !== null && used !== undefined ? `attempt ${used + 1} used` : 'none valid'}
          </dd>
        </div>
        {u && (
          <div className="kv-row">
            <dt>Orchestrator spend</dt>
            <dd>
              {u.promptTokens + u.completionTokens} tokens in {u.calls} {u.calls === 1 ? 'call' : 'calls'}
              {u.costUsd !== undefined ? ` · $${u.costUsd.toFixed(4)}` : ' · no price'}
            </dd>
          </div>
        )}
        {designer.failure && (
          <div className="kv-row">
            <dt>Why no design</dt>
            <dd>{designer.failure}</dd>
          </div>
        )}
      </dl>
      <ol className="designer-attempt-list">
        {designer.attempts.map((a, i) => (
          <li key={i} data-testid="designer-attempt">
            {a.valid ? (used === i ? 'valid, used' : 'valid') : a.error ? 'call failed' : 'invalid'} ·{' '}
            {a.promptTokens + a.completionTokens} tokens
            {a.costUsd !== undefined ? ` · $${a.costUsd.toFixed(4)}` : ''} · {Math.round(a.latencyMs)} ms
            {a.error && <p>{a.error}</p>}
            {a.problems.length > 0 && (
              <ol>
                {a.problems.map((p, j) => (
                  <li key={j}>{p}</li>
                ))}
              </ol>
            )}
            <Disclosure className="raw-output" summary={`Raw output of attempt ${i + 1}`}>
              <pre className="raw-text">{a.rawOutput}</pre>
            </Disclosure>
          </li>
        ))}
      </ol>
    </div>
  );
}
