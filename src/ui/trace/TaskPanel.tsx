import { memo, type JSX } from 'react';
import type { Designer, ExecutionBackend, Task, Trace } from '../../core/trace.ts';
import { recordedTotals } from '../../view/totals.ts';
import { useBaton } from '../../store/store.ts';
import { answerMarkdown, shownAnswer } from '../common/answer.ts';
import { agentCount, formatCost, formatMs, formatTokens, ifRecorded } from '../common/format.ts';
import { CollapsibleMarkdown, Markdown } from '../markdown/Markdown.tsx';
import { DesignerAttempts } from './DesignerAttempts.tsx';
import { Disclosure } from './Disclosure.tsx';
import { ImportNotes } from './ImportNotes.tsx';
import { designProvenance, DIAGRAM_ONLY_TEXT } from './provenance.ts';

function sourceText(source: Task['source']): string {
  switch (source.kind) {
    case 'custom':
      return 'Custom task';
    case 'masbench':
      return `MASBench · ${source.axis} ${source.value}${source.taskId ? ` · ${source.taskId}` : ''}`;
    case 'dataset':
      return `${source.name}${source.item ? ` · ${source.item}` : ''}`;
    case 'imported':
      return `Imported from ${source.tool}${source.ref ? ` · ${source.ref}` : ''}`;
  }
}

/** MAS-Orchestra's branches, as the designer record names them. */
const BRANCH_WORDS: Record<'direct' | 'delegate' | 'mas', string> = {
  direct: 'direct: answered without a sub-agent',
  delegate: 'delegate: one sub-agent',
  mas: 'MAS: a multi-agent design',
};

function DesignerInfo({ designer }: { designer: Designer }): JSX.Element {
  const rows: [string, string][] = [];
  switch (designer.kind) {
    case 'manual':
      rows.push(['Designer', 'Manual (built by hand)']);
      break;
    case 'policy':
      rows.push(['Designer', 'MasHost policy'], ['Checkpoint', designer.checkpoint]);
      if (designer.backend) rows.push(['Backend', designer.backend]);
      if (designer.seed !== undefined) rows.push(['Seed', String(designer.seed)]);
      break;
    case 'orchestrator':
      rows.push(['Designer', 'Orchestrator'], ['Model', designer.model]);
      if (designer.dtype || designer.device)
        rows.push(['Weights · device', [designer.dtype, designer.device].filter(Boolean).join(' · ')]);
      if (designer.deviceReason) rows.push(['Why this device', designer.deviceReason]);
      if (designer.dom) rows.push(['Degree of MAS asked', designer.dom]);
      if (designer.branch) rows.push(['Branch', BRANCH_WORDS[designer.branch]]);
      if (designer.constrained !== undefined)
        rows.push(['Decoding', designer.constrained ? 'constrained to the design grammar' : 'unconstrained']);
      if (designer.stopReason) rows.push(['Stopped', designer.stopReason]);
      if (designer.timings) {
        const t = designer.timings;
        const parts = [
          ...(t.loadMs !== undefined ? [`load ${formatMs(t.loadMs)}`] : []),
          ...(t.firstTokenMs !== undefined ? [`first token ${formatMs(t.firstTokenMs)}`] : []),
          `${formatTokens(t.tokens)} tokens in ${formatMs(t.generateMs)}`,
          `${t.tokensPerSecond.toFixed(1)} tokens/s`,
        ];
        rows.push(['Timings', parts.join(' · ')]);
      }
      if (designer.constraint && Object.keys(designer.constraint).length > 0)
        rows.push([
          'Constraint',
          Object.entries(designer.constraint)
            .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(1)}`)
            .join(' · '),
        ]);
      if (designer.parseErrors.length > 0) rows.push(['Parse errors', designer.parseErrors.join('; ')]);
      break;
    case 'imported':
      rows.push(['Designer', `Imported (${designer.tool})`]);
      if (designer.orchestrator) rows.push(['Orchestrator', designer.orchestrator]);
      if (designer.trainingStep !== undefined) rows.push(['Training step', String(designer.trainingStep)]);
      if (designer.subAgentModel) {
        // Where the page and its code disagree, say both rather than state the page's claim as fact.
        const d = designer.disagreements?.find((x) => x.field === 'subAgentModel');
        rows.push([
          'Sub-agent model',
          d
            ? `page says ${d.page}; ${d.codeOf === 'other-items' ? "other slides' code" : 'code'} calls ${d.code}`
            : designer.subAgentModel,
        ]);
      }
      if (designer.designRecovery)
        rows.push(['Design source', "orchestrator's text (recovered, not executed)"]);
      if (designer.dom) rows.push(['Degree of MAS', designer.dom]);
      break;
  }
  return (
    <dl className="kv" data-testid="designer">
      {rows.map(([k, v]) => (
        <div key={k} className="kv-row">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function BackendInfo({ backend }: { backend: ExecutionBackend }): JSX.Element {
  switch (backend.kind) {
    case 'none':
      return <span className="muted">Not executed</span>;
    case 'simulated':
      return (
        <span>
          <span
            className="chip chip-sim"
            data-testid="simulated-badge"
            title="Programmatic sub-agents, not a language model"
          >
            SIMULATED
          </span>{' '}
          seed {backend.seed}
          {backend.model ? ` · ${backend.model}` : ''}
        </span>
      );
    case 'remote':
      return (
        <span>
          {backend.provider} · {backend.model}
        </span>
      );
    case 'imported':
      return (
        <span>
          Imported run ({backend.tool}
          {backend.model ? ` · ${backend.model}` : ''})
        </span>
      );
  }
}

function Verdict({ correct }: { correct: boolean | null }): JSX.Element {
  if (correct === null) {
    return (
      <span className="verdict verdict-unknown" data-testid="verdict" data-verdict="unknown">
        not judged
      </span>
    );
  }
  return (
    <span
      className={correct ? 'verdict verdict-correct' : 'verdict verdict-incorrect'}
      data-testid="verdict"
      data-verdict={correct ? 'correct' : 'incorrect'}
    >
      {correct ? '✓ correct' : '✗ incorrect'}
    </span>
  );
}

/**
 * The final answer as the grader read it, with the way to the full output: the final agent in the
 * inspector, or a disclosure when no agent gave it.
 */
function FinalAnswer({
  output,
  truths,
  answerAgent,
}: {
  output: string | null;
  truths: readonly string[];
  answerAgent: string | undefined;
}): JSX.Element {
  const selectAgent = useBaton((s) => s.selectAgent);
  if (output === null) {
    return (
      <div className="answer-box" data-testid="final-answer">
        <span className="muted">none</span>
      </div>
    );
  }
  const shown = shownAnswer(output, truths);
  return (
    <div className="answer-box" data-testid="final-answer" data-extracted={shown.extracted}>
      <Markdown text={shown.extracted ? answerMarkdown(shown.answer) : output} />
      {shown.extracted &&
        (answerAgent ? (
          <button
            type="button"
            className="link-button small answer-full"
            data-testid="final-answer-full"
            onClick={() => selectAgent(answerAgent)}
          >
            the answer read from the final output · show it in full
          </button>
        ) : (
          <Disclosure className="answer-full" summary="Full final output">
            <CollapsibleMarkdown text={output} />
          </Disclosure>
        ))}
    </div>
  );
}

/** The task, who designed the MAS, the answer against the ground truth, backend and totals. */
export const TaskPanel = memo(function TaskPanel({ trace }: { trace: Trace }): JSX.Element {
  const { task, design, result, totals } = trace;
  const recorded = recordedTotals(trace);
  const truths = task.groundTruths && task.groundTruths.length > 0 ? task.groundTruths : null;
  const graded = truths ?? (task.groundTruth === null ? [] : [task.groundTruth]);
  return (
    <aside className="task-panel panel" data-testid="task-panel">
      <section className="insp-section">
        <h4>Question</h4>
        <div className="muted small">{sourceText(task.source)}</div>
        <div className="question" data-testid="question">
          <CollapsibleMarkdown text={task.query} />
        </div>
      </section>

      <section className="insp-section">
        <h4>
          Answer <Verdict correct={result.correct} />
        </h4>
        <div className="answer-grid">
          <div className="answer-label">Final</div>
          <FinalAnswer output={result.finalAnswer} truths={graded} answerAgent={result.answerAgent} />
          <div className="answer-label">Truth</div>
          <div className="answer-box">
            {truths ? (
              <Markdown text={truths.join(' · ')} />
            ) : task.groundTruth === null ? (
              <span className="muted">unknown</span>
            ) : (
              <Markdown text={task.groundTruth} />
            )}
          </div>
        </div>
        {result.answerAgent && <div className="muted small">from agent {result.answerAgent}</div>}
      </section>

      {design.directAnswer !== undefined && (
        <section className="insp-section">
          <h4>Direct answer</h4>
          <p className="muted small">The designer answered without delegating to sub-agents.</p>
          <CollapsibleMarkdown text={design.directAnswer} />
        </section>
      )}

      {design.thinking && (
        <Disclosure className="insp-section" summary="Orchestrator thinking">
          <CollapsibleMarkdown text={design.thinking} />
        </Disclosure>
      )}

      <section className="insp-section">
        <h4>Design</h4>
        <DesignerInfo designer={trace.designer} />
        <DesignerAttempts designer={trace.designer} />
        {trace.designer.kind === 'orchestrator' && trace.designer.rawOutput && (
          <Disclosure className="raw-output" summary="Raw orchestrator output">
            <pre className="raw-text">{trace.designer.rawOutput}</pre>
          </Disclosure>
        )}
        <dl className="kv">
          <div className="kv-row">
            <dt>Execution</dt>
            <dd>
              <BackendInfo backend={trace.execution.backend} /> · {trace.execution.status}
            </dd>
          </div>
          <div className="kv-row">
            <dt>Agents</dt>
            <dd>
              {designProvenance(trace).kind === 'diagram-only'
                ? DIAGRAM_ONLY_TEXT
                : `${agentCount(design.agents)} · ${design.edges.length} ${design.edges.length === 1 ? 'edge' : 'edges'} · DoM ${design.dom}`}
              {trace.construction.length > 0 ? ` · ${trace.construction.length} construction steps` : ''}
            </dd>
          </div>
        </dl>
      </section>

      <section className="insp-section">
        <h4>Totals</h4>
        <div className="totals" data-testid="totals">
          <div>
            <strong>
              {ifRecorded(recorded.usage, totals.promptTokens + totals.completionTokens, formatTokens)}
            </strong>
            <span>tokens</span>
            {recorded.usage && (
              <small>
                {formatTokens(totals.promptTokens)} in / {formatTokens(totals.completionTokens)} out
              </small>
            )}
          </div>
          <div>
            <strong>{ifRecorded(recorded.usage, totals.costUsd, formatCost)}</strong>
            <span>cost</span>
          </div>
          <div>
            <strong>{ifRecorded(recorded.usage, totals.llmCalls, String)}</strong>
            <span>LLM calls</span>
          </div>
          <div>
            <strong>{ifRecorded(recorded.time, totals.wallMs, formatMs)}</strong>
            <span>wall time</span>
          </div>
          <div>
            <strong>{ifRecorded(recorded.time, totals.criticalPathMs, formatMs)}</strong>
            <span>critical path</span>
          </div>
        </div>
      </section>

      <ImportNotes trace={trace} />

      {trace.trimmed && (
        <p className="muted small">
          {trace.trimmed.fields} long fields were shortened to fit a share link (
          {trace.trimmed.charsRemoved.toLocaleString('en')} characters removed).
        </p>
      )}
      {trace.tags.length > 0 && (
        <div className="tags">
          {trace.tags.map((t) => (
            <span key={t} className="chip">
              {t}
            </span>
          ))}
        </div>
      )}
    </aside>
  );
});
