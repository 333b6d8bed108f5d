import { AGENT_TYPE_INFO, type AgentType } from '../../core/agents.ts';
import type { RawAgent } from '../../design/raw.ts';
import { referencesIn } from '../../design/references.ts';
import { fromDesign } from '../../design/validate.ts';
import type { SliceCreator } from '../store.ts';
import type { Draft } from './run-design.ts';
import type { RunSlice } from './run.ts';

/** The Run page's drawing editor: the actions that change the hand-drawn draft. */

export type DraftActions = Pick<
  RunSlice,
  | 'draftAddAgent'
  | 'draftUpdateAgent'
  | 'draftRemoveAgent'
  | 'draftConnect'
  | 'draftRemoveEdge'
  | 'draftMoveAgent'
  | 'draftSelect'
  | 'draftFromDesign'
>;

const TYPE_PREFIX: Record<AgentType, string> = {
  CoTAgent: 'cot',
  SCAgent: 'sc',
  DebateAgent: 'debate',
  ReflexionAgent: 'reflexion',
  WebSearchAgent: 'search',
  ExtractAgent: 'extract',
  CEOAgent: 'ceo',
  SummarizerAgent: 'summary',
};

const refToken = (id: string): string => `\${${id}}`;

function withoutRef(input: string, id: string): string {
  return input
    .split(refToken(id))
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Where the k-th drawn agent first appears: three per row, in the editor's coordinates. */
function gridPosition(k: number): { x: number; y: number } {
  return { x: 20 + (k % 3) * 230, y: 20 + Math.floor(k / 3) * 100 };
}

export const EMPTY_DRAFT: Draft = { agents: [], edges: [], positions: {} };

type Set = Parameters<SliceCreator<DraftActions>>[0];
type Get = Parameters<SliceCreator<DraftActions>>[1];

/** Spread into the run slice; `set` and `get` are the combined store's. */
export const createDraftActions = (set: Set, get: Get): DraftActions => {
  const setDraft = (fn: (d: Draft) => Draft): void => set((s) => ({ draft: fn(s.draft) }));

  return {
    draftAddAgent(type) {
      const { draft } = get();
      const prefix = TYPE_PREFIX[type];
      let n = 1;
      while (draft.agents.some((a) => a.id === `${prefix}${n}`)) n += 1;
      const id = `${prefix}${n}`;
      const agent: RawAgent = {
        id,
        type,
        description: AGENT_TYPE_INFO[type].summary,
        input: '',
        ...(type === 'DebateAgent' ? { debateRoles: ['Proponent', 'Skeptic'] } : {}),
        params: {},
      };
      const k = draft.agents.length;
      setDraft((d) => ({
        agents: [...d.agents, agent],
        edges: d.edges,
        positions: { ...d.positions, [id]: gridPosition(k) },
      }));
      set({ draftSelected: id });
      return id;
    },

    draftUpdateAgent(id, patch) {
      const next = patch.id !== undefined ? patch.id.trim() : id;
      setDraft((d) => {
        if (next !== id && (next === '' || d.agents.some((a) => a.id === next))) return d;
        const rename = (x: string): string => (x === id ? next : x);
        const agents = d.agents.map((a) => {
          const updated = a.id === id ? { ...a, ...patch, id: next } : a;
          return next === id
            ? updated
            : { ...updated, input: updated.input.split(refToken(id)).join(refToken(next)) };
        });
        const positions = { ...d.positions };
        if (next !== id && positions[id]) {
          positions[next] = positions[id];
          delete positions[id];
        }
        return {
          agents,
          edges: d.edges.map((e) => ({ from: rename(e.from), to: rename(e.to) })),
          positions,
        };
      });
      if (next !== id && get().draftSelected === id && get().draft.agents.some((a) => a.id === next))
        set({ draftSelected: next });
    },

    draftRemoveAgent(id) {
      setDraft((d) => {
        const positions = { ...d.positions };
        delete positions[id];
        return {
          agents: d.agents.filter((a) => a.id !== id).map((a) => ({ ...a, input: withoutRef(a.input, id) })),
          edges: d.edges.filter((e) => e.from !== id && e.to !== id),
          positions,
        };
      });
      if (get().draftSelected === id) set({ draftSelected: null });
    },

    draftConnect(from, to) {
      setDraft((d) => {
        if (from === to || d.edges.some((e) => e.from === from && e.to === to)) return d;
        if (!d.agents.some((a) => a.id === from) || !d.agents.some((a) => a.id === to)) return d;
        return {
          ...d,
          edges: [...d.edges, { from, to }],
          agents: d.agents.map((a) =>
            a.id !== to || referencesIn(a.input).includes(from)
              ? a
              : {
                  ...a,
                  input: a.input.trim() === '' ? refToken(from) : `${a.input.trimEnd()}\n${refToken(from)}`,
                },
          ),
        };
      });
    },

    draftRemoveEdge(from, to) {
      setDraft((d) => ({
        ...d,
        edges: d.edges.filter((e) => !(e.from === from && e.to === to)),
        agents: d.agents.map((a) => (a.id === to ? { ...a, input: withoutRef(a.input, from) } : a)),
      }));
    },

    draftMoveAgent(id, position) {
      setDraft((d) => ({ ...d, positions: { ...d.positions, [id]: position } }));
    },

    draftSelect(id) {
      set({ draftSelected: id });
    },

    draftFromDesign(design) {
      const raw = fromDesign(design);
      const positions: Draft['positions'] = {};
      raw.agents.forEach((a, k) => {
        positions[a.id] = gridPosition(k);
      });
      set({
        draft: { agents: raw.agents, edges: raw.edges, positions },
        designMode: 'draw',
        draftSelected: null,
      });
    },
  };
};
