import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  ReactFlowProvider,
  type Connection,
  type Edge,
  type EdgeChange,
  type Node,
  type NodeChange,
  type NodeProps,
} from '@xyflow/react';
import { memo, useCallback, useMemo, useState, type JSX } from 'react';
import { AGENT_TYPE_INFO, AGENT_TYPES, normaliseAgentType, type AgentType } from '../../core/agents.ts';
import type { RawAgent } from '../../design/raw.ts';
import { useBaton } from '../../store/store.ts';
import { typeColor } from '../graph/colors.ts';

type DraftNodeData = { agent: RawAgent };
type DraftFlowNode = Node<DraftNodeData, 'draft'>;

const SIZE = { width: 190, height: 64 };
const HANDLES: NonNullable<DraftFlowNode['handles']> = [
  { type: 'target', position: Position.Left, x: -5, y: SIZE.height / 2 - 5, width: 10, height: 10 },
  {
    type: 'source',
    position: Position.Right,
    x: SIZE.width - 5,
    y: SIZE.height / 2 - 5,
    width: 10,
    height: 10,
  },
];

const DraftNode = memo(function DraftNode({ data, selected }: NodeProps<DraftFlowNode>): JSX.Element {
  const type = normaliseAgentType(data.agent.type);
  return (
    <div
      className={selected ? 'draft-node selected' : 'draft-node'}
      style={{ borderLeftColor: typeColor(data.agent.type) }}
      data-testid="draft-node"
      data-agent-id={data.agent.id}
    >
      <Handle type="target" position={Position.Left} className="draft-handle" data-testid="draft-handle-in" />
      <div className="draft-node-id mono">{data.agent.id}</div>
      <div className="muted small">{type ? AGENT_TYPE_INFO[type].label : data.agent.type}</div>
      <Handle
        type="source"
        position={Position.Right}
        className="draft-handle"
        data-testid="draft-handle-out"
      />
    </div>
  );
});

const nodeTypes = { draft: DraftNode };
const ARROW = { type: MarkerType.ArrowClosed, width: 16, height: 16 } as const;

/** Parameters as JSON text; applied only while the text parses to an object. */
function ParamsField({ agent }: { agent: RawAgent }): JSX.Element {
  const update = useBaton((s) => s.draftUpdateAgent);
  const initial = JSON.stringify(
    { ...(agent.params ?? {}), ...(agent.debateRoles ? { debateRoles: agent.debateRoles } : {}) },
    null,
    1,
  );
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  return (
    <label className="field">
      <span>Parameters (JSON: samples, maxRounds, temperature, maxTokens, model, debateRoles)</span>
      <textarea
        className="input mono run-textarea"
        rows={4}
        value={text}
        spellCheck={false}
        data-testid="draft-params"
        onChange={(e) => {
          setText(e.target.value);
          try {
            const value: unknown = JSON.parse(e.target.value || '{}');
            if (typeof value !== 'object' || value === null || Array.isArray(value))
              throw new Error('expected an object');
            const { debateRoles, ...params } = value as Record<string, unknown>;
            const roles =
              Array.isArray(debateRoles) && debateRoles.every((r) => typeof r === 'string')
                ? (debateRoles as string[])
                : undefined;
            update(agent.id, { params, debateRoles: roles });
            setError(null);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          }
        }}
      />
      {error && <span className="field-error">Not applied: {error}</span>}
    </label>
  );
}

/** The side form for the selected agent. Keyed by id, so renaming starts a fresh form. */
function AgentForm({ agent }: { agent: RawAgent }): JSX.Element {
  const update = useBaton((s) => s.draftUpdateAgent);
  const remove = useBaton((s) => s.draftRemoveAgent);
  const removeEdge = useBaton((s) => s.draftRemoveEdge);
  const edges = useBaton((s) => s.draft.edges);
  const [id, setId] = useState(agent.id);
  const incoming = edges.filter((e) => e.to === agent.id);
  return (
    <div className="draft-form" data-testid="draft-form">
      <label className="field">
        <span>Id (letters, digits, _ . : -)</span>
        <input
          className="input mono"
          value={id}
          data-testid="draft-id"
          onChange={(e) => setId(e.target.value)}
          onBlur={() => update(agent.id, { id })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') update(agent.id, { id });
          }}
        />
      </label>
      <label className="field">
        <span>Type</span>
        <select
          className="input"
          value={normaliseAgentType(agent.type) ?? agent.type}
          data-testid="draft-type"
          onChange={(e) => update(agent.id, { type: e.target.value })}
        >
          {AGENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {AGENT_TYPE_INFO[t].label}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Description</span>
        <textarea
          className="input run-textarea"
          rows={2}
          value={agent.description}
          data-testid="draft-description"
          onChange={(e) => update(agent.id, { description: e.target.value })}
        />
      </label>
      <label className="field">
        <span>Input (empty = the original question; {'${id}'} = that agent’s output)</span>
        <textarea
          className="input mono run-textarea"
          rows={3}
          value={agent.input}
          data-testid="draft-input"
          onChange={(e) => update(agent.id, { input: e.target.value })}
        />
      </label>
      <ParamsField key={agent.id} agent={agent} />
      {incoming.length > 0 && (
        <div className="small">
          Inputs from:{' '}
          {incoming.map((e) => (
            <button
              key={e.from}
              type="button"
              className="btn btn-ghost btn-small"
              title="Remove this edge"
              onClick={() => removeEdge(e.from, e.to)}
            >
              {e.from} ✕
            </button>
          ))}
        </div>
      )}
      <button type="button" className="btn btn-danger btn-small" onClick={() => remove(agent.id)}>
        Remove agent
      </button>
    </div>
  );
}

function Canvas(): JSX.Element {
  const draft = useBaton((s) => s.draft);
  const selected = useBaton((s) => s.draftSelected);
  const move = useBaton((s) => s.draftMoveAgent);
  const select = useBaton((s) => s.draftSelect);
  const connect = useBaton((s) => s.draftConnect);
  const removeAgent = useBaton((s) => s.draftRemoveAgent);
  const removeEdge = useBaton((s) => s.draftRemoveEdge);
  const nodes = useMemo<DraftFlowNode[]>(
    () =>
      draft.agents.map((a) => ({
        id: a.id,
        type: 'draft',
        position: draft.positions[a.id] ?? { x: 0, y: 0 },
        data: { agent: a },
        selected: a.id === selected,
        ...SIZE,
        measured: SIZE,
        handles: HANDLES,
      })),
    [draft, selected],
  );
  const edges = useMemo<Edge[]>(
    () =>
      draft.edges.map((e) => ({ id: `${e.from}>${e.to}`, source: e.from, target: e.to, markerEnd: ARROW })),
    [draft.edges],
  );
  const onNodesChange = useCallback(
    (changes: NodeChange<DraftFlowNode>[]) => {
      for (const c of changes) {
        if (c.type === 'position' && c.position) move(c.id, c.position);
        else if (c.type === 'select' && c.selected) select(c.id);
        else if (c.type === 'remove') removeAgent(c.id);
      }
    },
    [move, select, removeAgent],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      for (const c of changes) {
        if (c.type !== 'remove') continue;
        const [from, to] = c.id.split('>');
        if (from && to) removeEdge(from, to);
      }
    },
    [removeEdge],
  );
  const onConnect = useCallback(
    (c: Connection) => {
      if (c.source && c.target) connect(c.source, c.target);
    },
    [connect],
  );
  return (
    <ReactFlow<DraftFlowNode>
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onEdgesChange={onEdgesChange}
      onConnect={onConnect}
      onPaneClick={() => select(null)}
      deleteKeyCode={['Delete', 'Backspace']}
      defaultViewport={{ x: 0, y: 0, zoom: 0.7 }}
      minZoom={0.2}
      maxZoom={1.5}
    >
      <Background gap={20} size={1} />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}

/** Draw a design: add agents by type, drag from a node's right handle to another's left to connect. */
export function DesignEditor(): JSX.Element {
  const add = useBaton((s) => s.draftAddAgent);
  const agents = useBaton((s) => s.draft.agents);
  const selected = useBaton((s) => s.draftSelected);
  const [type, setType] = useState<AgentType>('CoTAgent');
  const agent = agents.find((a) => a.id === selected) ?? null;
  return (
    <div className="draft" data-testid="design-editor">
      <div className="row">
        <select
          className="input"
          value={type}
          aria-label="Agent type to add"
          data-testid="draft-add-type"
          onChange={(e) => setType(e.target.value as AgentType)}
        >
          {AGENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {AGENT_TYPE_INFO[t].label}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-small" data-testid="draft-add" onClick={() => add(type)}>
          Add agent
        </button>
        <span className="muted small">
          Drag from a node’s right dot to another’s left dot to feed it; Delete removes the selection.
        </span>
      </div>
      <div className="draft-body">
        <div className="draft-canvas">
          <ReactFlowProvider>
            <Canvas />
          </ReactFlowProvider>
        </div>
        {agent ? (
          <AgentForm key={agent.id} agent={agent} />
        ) : (
          <div className="draft-form muted small">Select an agent to edit it.</div>
        )}
      </div>
    </div>
  );
}
