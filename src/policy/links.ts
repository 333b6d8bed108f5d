/**
 * The construction graph as the policy network's message-passing layers read it (encoder version
 * 3): per link j → k (k reads j) its two agent rows and the weights that make the sums over an
 * agent's links and readers means, and per agent row its weight in the mean over all agents and
 * in the mean over the sinks (the readouts). Agent rows are those of `encodeAgents`.
 */
import type { ConstructionState } from './construction.ts';
import type { EncoderConfig } from './encoder.ts';

/** Largest number of links N agents can have: a DAG over N agents has at most N(N − 1)/2 edges. */
export const maxLinks = (c: EncoderConfig): number => Math.max(1, (c.maxAgents * (c.maxAgents - 1)) / 2);

/**
 * The construction graph as the message-passing layers read it, for B states (`graphInputs`):
 * M = maxLinks message slots and N agent rows per state; state b owns slots b·M … b·M + M − 1 and
 * rows b·N … b·N + N − 1. A slot is one link j → k (agent k reads agent j's output); unused slots
 * have weight 0 (their rows point at row b·N and add exactly nothing).
 */
export interface GraphInputs {
  /** [B·M] u32: row of the agent read (the link's source j). */
  msgFrom: Uint32Array;
  /** [B·M] u32: row of the reader (the link's target k). */
  msgTo: Uint32Array;
  /** [B·M] 1 / links(k): summing the messages into k averages over what k reads; 0 = unused slot. */
  inWeight: Float32Array;
  /** [B·M] 1 / readers(j): summing the messages into j averages over who reads j; 0 = unused slot. */
  outWeight: Float32Array;
  /** [B·N] 1 / agents for every agent row, 0 for empty slots: the mean over agents. */
  readMean: Float32Array;
  /** [B·N] 1 / sinks for every sink (an agent nothing reads yet), else 0: the mean over branch ends. */
  readSink: Float32Array;
  /** [B·N] u32: the state each agent row belongs to (b), for the readouts. */
  agentBatch: Uint32Array;
}

export function graphInputs(c: EncoderConfig, batch: number): GraphInputs {
  const M = maxLinks(c) * batch;
  const N = c.maxAgents * batch;
  const agentBatch = new Uint32Array(N);
  for (let r = 0; r < N; r++) agentBatch[r] = Math.floor(r / c.maxAgents);
  return {
    msgFrom: new Uint32Array(M),
    msgTo: new Uint32Array(M),
    inWeight: new Float32Array(M),
    outWeight: new Float32Array(M),
    readMean: new Float32Array(N),
    readSink: new Float32Array(N),
    agentBatch,
  };
}

/**
 * The links of state `s` and its readout weights, agents in `encodeAgents` row order (local
 * indices 0 … n − 1): per link j → k, listed reader by reader in link order, `from` = j, `to` = k
 * and the two mean weights; per agent its weight in the mean over agents and over sinks.
 */
export interface StateLinks {
  agents: number;
  from: number[];
  to: number[];
  inWeight: number[];
  outWeight: number[];
  readMean: number[];
  readSink: number[];
}

export function stateLinks(c: EncoderConfig, s: ConstructionState): StateLinks {
  const agents = s.agents.slice(0, c.maxAgents);
  const row = new Map<string, number>();
  agents.forEach((a, i) => row.set(a.id, i));
  const readers = new Array<number>(agents.length).fill(0);
  for (const a of agents)
    for (const l of a.links) {
      const j = row.get(l);
      if (j !== undefined) readers[j] = (readers[j] as number) + 1;
    }
  const out: StateLinks = {
    agents: agents.length,
    from: [],
    to: [],
    inWeight: [],
    outWeight: [],
    readMean: [],
    readSink: [],
  };
  agents.forEach((a, k) => {
    const links = a.links.map((l) => row.get(l)).filter((j): j is number => j !== undefined);
    for (const j of links) {
      out.from.push(j);
      out.to.push(k);
      out.inWeight.push(1 / links.length);
      out.outWeight.push(1 / (readers[j] as number));
    }
  });
  if (out.from.length > maxLinks(c))
    throw new Error(`more than ${maxLinks(c)} links among ${c.maxAgents} agents`);
  const sinks = readers.filter((n) => n === 0).length;
  for (let i = 0; i < agents.length; i++) {
    out.readMean.push(1 / agents.length);
    out.readSink.push(readers[i] === 0 ? 1 / sinks : 0);
  }
  return out;
}

/**
 * Writes state `s` into slot `b` of `out` (layout in `GraphInputs`). Agents keep the rows of
 * `encodeAgents` (state order); links are listed reader by reader, in link order.
 */
export function encodeGraph(c: EncoderConfig, s: ConstructionState, out: GraphInputs, b = 0): GraphInputs {
  const N = c.maxAgents;
  const M = maxLinks(c);
  const base = b * N;
  const l = stateLinks(c, s);
  out.msgFrom.fill(base, b * M, (b + 1) * M);
  out.msgTo.fill(base, b * M, (b + 1) * M);
  out.inWeight.fill(0, b * M, (b + 1) * M);
  out.outWeight.fill(0, b * M, (b + 1) * M);
  l.from.forEach((j, i) => {
    const m = b * M + i;
    out.msgFrom[m] = base + j;
    out.msgTo[m] = base + (l.to[i] as number);
    out.inWeight[m] = l.inWeight[i] as number;
    out.outWeight[m] = l.outWeight[i] as number;
  });
  for (let i = 0; i < N; i++) {
    out.readMean[base + i] = l.readMean[i] ?? 0;
    out.readSink[base + i] = l.readSink[i] ?? 0;
  }
  return out;
}
