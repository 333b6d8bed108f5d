import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo, type JSX } from 'react';
import { AGENT_TYPE_INFO } from '../../core/agents.ts';
import type { Agent } from '../../core/trace.ts';
import type { AgentStatus } from '../../view/replay.ts';
import { STATUS_COLORS, typeColor } from './colors.ts';
import { formatCost, formatTokens } from '../common/format.ts';

export type AgentNodeData = {
  agent: Agent;
  status: AgentStatus;
  /** Finished LLM calls, with their tokens and cost. */
  calls: number;
  tokens: number;
  costUsd: number;
  /** Calls under way (started, not finished): shown, but their tokens are not counted yet. */
  callsInFlight?: number;
  /** The final-answer agent. */
  isSink: boolean;
  /** The agent the current replay item is about. */
  isFocus: boolean;
  isSelected: boolean;
  /** During construction replay there is no execution status to show. */
  showStatus: boolean;
};

export type AgentFlowNode = Node<AgentNodeData, 'agent'>;

/** The smallest font in a node (graph.css); the trace canvas never fits below a zoom that keeps it readable. */
export const NODE_MIN_FONT_PX = 12;

/**
 * A graph node: type colour band and label (never cut: the status sits on the id's line), id and
 * status, role/description, token and cost badges. Every text is at least `NODE_MIN_FONT_PX`.
 */
export const AgentNode = memo(function AgentNode({ data }: NodeProps<AgentFlowNode>): JSX.Element {
  const { agent, status } = data;
  const inFlight = data.callsInFlight ?? 0;
  const color = typeColor(agent.type);
  const classes = ['agent-node', `status-${status}`];
  if (data.isSelected) classes.push('selected');
  if (data.isFocus) classes.push('focus');
  if (data.isSink) classes.push('sink');
  // Descriptions are markdown; the node has room for plain text only, so drop the emphasis marks.
  const plain = agent.description.replace(/[*_`#>]+/g, '');
  const blurb = agent.role ? `${agent.role} — ${plain}` : plain;
  return (
    <div
      className={classes.join(' ')}
      data-testid="agent-node"
      data-agent-id={agent.id}
      data-status={status}
      style={{ ['--type-color' as string]: color }}
      title={`${agent.id} · ${AGENT_TYPE_INFO[agent.type].label}\n${blurb}`}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="agent-node-head">
        <span className="agent-node-type">{AGENT_TYPE_INFO[agent.type].label}</span>
        {data.isSink && (
          <span className="agent-node-sink" title="Final answer (sink)">
            ★ final
          </span>
        )}
      </div>
      <div className="agent-node-idrow">
        <span className="agent-node-id">{agent.id}</span>
        {data.showStatus && (
          <span className="agent-node-status" style={{ color: STATUS_COLORS[status] }}>
            <span className="status-dot" style={{ background: STATUS_COLORS[status] }} />
            {status}
          </span>
        )}
      </div>
      <div className="agent-node-desc">{blurb}</div>
      {data.showStatus && (data.calls > 0 || inFlight > 0) && (
        <div className="agent-node-badges">
          {data.calls > 0 && (
            <>
              <span className="badge" title="Finished LLM calls">
                {data.calls} {data.calls === 1 ? 'call' : 'calls'}
              </span>
              <span className="badge" title="Prompt + completion tokens of the finished calls">
                {formatTokens(data.tokens)} tok
              </span>
              <span className="badge" title="Cost">
                {formatCost(data.costUsd)}
              </span>
            </>
          )}
          {inFlight > 0 && (
            <span className="badge badge-inflight" title="LLM calls under way: tokens count when they finish">
              {inFlight} in flight
            </span>
          )}
        </div>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});
