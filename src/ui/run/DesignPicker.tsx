import { useEffect, useMemo, type JSX } from 'react';
import { DESIGN_RULES } from '../../design/validate.ts';
import { listTitle } from '../../store/slices/library.ts';
import { checkDesign, type DesignCheck, type DesignMode } from '../../store/slices/run.ts';
import { useBaton } from '../../store/store.ts';
import { agentCount, plural } from '../common/format.ts';
import { DesignEditor } from './DesignEditor.tsx';

/** Option labels are cut at a word so the select stays within its column. */
const OPTION_TITLE_MAX = 60;

const MODES: { mode: DesignMode; label: string }[] = [
  { mode: 'trace', label: 'From a trace' },
  { mode: 'paste', label: 'Paste XML / JSON' },
  { mode: 'draw', label: 'Draw' },
];

const EXAMPLE_XML = `<agent>
    <agent_id>solver</agent_id>
    <agent_name>CoTAgent</agent_name>
    <agent_description>Solves the task step by step.</agent_description>
    <required_arguments><agent_input></agent_input></required_arguments>
</agent>
<agent>
    <agent_id>checker</agent_id>
    <agent_name>ReflexionAgent</agent_name>
    <agent_description>Checks the solution and gives the final answer.</agent_description>
    <required_arguments><agent_input>\${solver}</agent_input></required_arguments>
</agent>
<edge>
    <from>solver</from> <to>checker</to>
</edge>`;

/** Every reading problem and numbered rule violation, as text (it may quote the design). */
export function DesignProblems({ check }: { check: DesignCheck }): JSX.Element {
  if (check.design) {
    return (
      <p className="badge badge-ok" data-testid="design-valid">
        Valid design · {agentCount(check.design.agents)} · {check.design.edges.length}{' '}
        {check.design.edges.length === 1 ? 'edge' : 'edges'}
      </p>
    );
  }
  return (
    <ul className="design-problems" data-testid="design-problems" aria-live="polite">
      {check.problems.map((p, i) => (
        <li key={`p${i}`} data-testid="design-problem">
          {p}
        </li>
      ))}
      {check.violations.map((v, i) => (
        <li key={`v${i}`} data-testid="design-violation" data-rule={v.rule} title={DESIGN_RULES[v.rule]}>
          <strong>Rule {v.rule}:</strong> {v.message}
        </li>
      ))}
    </ul>
  );
}

function TraceChoice(): JSX.Element {
  const examples = useBaton((s) => s.examples);
  const loadExamples = useBaton((s) => s.loadExamples);
  const recents = useBaton((s) => s.recents);
  const chosen = useBaton((s) => s.designTrace);
  const pick = useBaton((s) => s.pickDesignTrace);
  const draftFromDesign = useBaton((s) => s.draftFromDesign);
  useEffect(() => {
    if (examples.status === 'idle') void loadExamples();
  }, [examples.status, loadExamples]);
  const exampleItems = examples.status === 'ready' ? examples.value.filter((e) => e.trace.ok) : [];
  const value = chosen.status === 'ready' ? chosen.trace.id : chosen.status === 'idle' ? '' : chosen.id;
  return (
    <div className="stack">
      <select
        className="input"
        value={value}
        data-testid="run-design-trace-select"
        onChange={(e) => {
          if (e.target.value !== '') void pick(e.target.value);
        }}
      >
        <option value="">Choose a trace…</option>
        {exampleItems.length > 0 && (
          <optgroup label="Examples">
            {exampleItems.map((e) =>
              e.trace.ok ? (
                <option key={`ex:${e.trace.value.id}`} value={e.trace.value.id} title={e.title}>
                  {listTitle(e.title, '', OPTION_TITLE_MAX)} ({agentCount(e.trace.value.design.agents)})
                </option>
              ) : null,
            )}
          </optgroup>
        )}
        {recents.length > 0 && (
          <optgroup label="Recent">
            {recents
              .filter((r) => r.agentCount > 0)
              .map((r) => (
                <option key={`re:${r.id}`} value={r.id} title={r.title}>
                  {listTitle(r.title, r.query, OPTION_TITLE_MAX)} ({plural(r.agentCount, 'agent')})
                </option>
              ))}
          </optgroup>
        )}
      </select>
      {examples.status === 'loading' && <span className="muted small">Loading the examples…</span>}
      {chosen.status === 'loading' && <span className="muted small">Opening the trace…</span>}
      {chosen.status === 'error' && (
        <p className="alert alert-error" role="alert">
          {chosen.message}
        </p>
      )}
      {chosen.status === 'ready' && (
        <div className="row">
          <span className="muted small">
            Runs the design of “{chosen.trace.title}” on the task above (the trace’s own task is not used).
          </span>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => draftFromDesign(chosen.trace.design)}
          >
            Edit in the graph
          </button>
        </div>
      )}
    </div>
  );
}

function PasteChoice(): JSX.Element {
  const text = useBaton((s) => s.designText);
  const setText = useBaton((s) => s.setDesignText);
  return (
    <div className="stack">
      <textarea
        className="input run-textarea mono"
        rows={12}
        spellCheck={false}
        value={text}
        placeholder="MAS-Orchestra XML (<agent> blocks and an <edge> block) or Baton JSON (baton.design/1)"
        data-testid="run-design-text"
        onChange={(e) => setText(e.target.value)}
      />
      <div className="row">
        <button type="button" className="btn btn-small" onClick={() => setText(EXAMPLE_XML)}>
          Insert an example
        </button>
      </div>
    </div>
  );
}

/** What switching Paste → Draw did with the pasted design. */
function PasteCarryNote(): JSX.Element | null {
  const carry = useBaton((s) => s.pasteCarry);
  const replace = useBaton((s) => s.draftFromPaste);
  if (!carry) return null;
  if (carry.kind === 'carried')
    return (
      <p className="alert alert-ok small" role="status" data-testid="run-paste-carried">
        The pasted design ({plural(carry.agents, 'agent')}, {plural(carry.edges, 'edge')}) is now in the
        drawing.
      </p>
    );
  if (carry.kind === 'kept-drawing')
    return (
      <div className="alert alert-warn small" role="status" data-testid="run-paste-kept">
        <div className="alert-body">
          Your drawing is kept. The pasted design ({plural(carry.agents, 'agent')},{' '}
          {plural(carry.edges, 'edge')}) was not drawn over it.
        </div>
        <button type="button" className="btn btn-small" onClick={replace} data-testid="run-paste-replace">
          Replace the drawing with it
        </button>
      </div>
    );
  return (
    <p className="alert alert-warn small" role="status" data-testid="run-paste-invalid">
      The pasted text is not a valid design, so the drawing was left as it was.
    </p>
  );
}

/** The design: a trace's, pasted text, or drawn by hand; validated live. */
export function DesignPicker({ disabled }: { disabled: boolean }): JSX.Element {
  const mode = useBaton((s) => s.designMode);
  const setMode = useBaton((s) => s.setDesignMode);
  const designTrace = useBaton((s) => s.designTrace);
  const designText = useBaton((s) => s.designText);
  const draft = useBaton((s) => s.draft);
  const check = useMemo(
    () => checkDesign({ designMode: mode, designTrace, designText, draft }),
    [mode, designTrace, designText, draft],
  );
  return (
    <fieldset className="run-card" disabled={disabled}>
      <legend>2 · Design</legend>
      <div className="run-seg" role="radiogroup" aria-label="Design source">
        {MODES.map((m) => (
          <label key={m.mode} className={mode === m.mode ? 'run-seg-on' : ''}>
            <input
              type="radio"
              name="design-mode"
              checked={mode === m.mode}
              data-testid={`run-design-${m.mode}`}
              onChange={() => setMode(m.mode)}
            />
            {m.label}
          </label>
        ))}
      </div>
      {mode === 'trace' && <TraceChoice />}
      {mode === 'paste' && <PasteChoice />}
      {mode === 'draw' && <PasteCarryNote />}
      {mode === 'draw' && <DesignEditor />}
      <DesignProblems check={check} />
    </fieldset>
  );
}
