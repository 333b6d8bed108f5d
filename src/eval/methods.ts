/**
 * Methods from their command-line words and back: `cot`, `sc`, `debate`, `reflexion`, `ceo`,
 * `policy:<checkpoint>[:greedy|:sampled]`, `design:<name>`, `orchestrator:<model>` and
 * `orchestrator:provider[:<model>]` (the provider's model writes each design). Each archive
 * agent runs alone on the whole task at the archive's defaults, stated here so a results file
 * says what ran (the same settings as docs/simulator.md's table).
 */
import type { AgentType } from '../core/agents.ts';
import type { AgentParams, Design } from '../core/trace.ts';
import { ARCHIVE_METHODS, type ArchiveMethod, type Method } from './schema.ts';

export const ARCHIVE_AGENTS: Record<ArchiveMethod, { type: AgentType; params: AgentParams; label: string }> =
  {
    cot: { type: 'CoTAgent', params: {}, label: 'CoT' },
    sc: { type: 'SCAgent', params: { samples: 5 }, label: 'SC (5)' },
    debate: {
      type: 'DebateAgent',
      params: { debateRoles: ['Proponent', 'Skeptic'], maxRounds: 2 },
      label: 'Debate (2 roles, 2 rounds)',
    },
    reflexion: { type: 'ReflexionAgent', params: {}, label: 'Reflexion' },
    ceo: { type: 'CEOAgent', params: {}, label: 'CEO discussion' },
  };

/** The one-agent design of an archive method: empty description (no role), the whole task as input. */
export function archiveDesign(agent: ArchiveMethod): Design {
  const a = ARCHIVE_AGENTS[agent];
  return {
    dom: 'low',
    agents: [{ id: agent, type: a.type, description: '', input: '', params: { ...a.params } }],
    edges: [],
  };
}

/** The method's id: its words as typed, normalised (`policy:prior:greedy`, `design:my.xml`). */
export function methodId(m: Method): string {
  switch (m.kind) {
    case 'agent':
      return m.agent;
    case 'design':
      return `design:${m.name}`;
    case 'policy':
      return `policy:${m.checkpoint}:${m.greedy ? 'greedy' : 'sampled'}`;
    case 'orchestrator':
      return `orchestrator:${m.model}`;
  }
}

export function methodLabel(m: Method): string {
  switch (m.kind) {
    case 'agent':
      return ARCHIVE_AGENTS[m.agent].label;
    case 'design':
      return `Design ${m.name}`;
    case 'policy':
      return `Policy ${m.checkpoint} (${m.greedy ? 'greedy' : 'sampled'})`;
    case 'orchestrator':
      return m.model === 'provider' || m.model.startsWith('provider:')
        ? `Orchestrator: provider${m.model.length > 8 ? ` ${m.model.slice(9)}` : ''} (design + repair)`
        : `Orchestrator ${m.model}`;
  }
}

/** What a method word asks for, before files are read: a design or a checkpoint is still a name. */
export type MethodWord =
  | { kind: 'agent'; agent: ArchiveMethod }
  | { kind: 'design'; file: string }
  | { kind: 'policy'; checkpoint: string; greedy: boolean }
  | { kind: 'orchestrator'; model: string };

/** Splits `a,b,policy:x.json:sampled` into method words, or says which word is wrong. */
export function parseMethodWords(
  text: string,
): { ok: true; words: MethodWord[] } | { ok: false; message: string } {
  const words: MethodWord[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(',').map((w) => w.trim())) {
    if (raw === '') continue;
    let word: MethodWord;
    if ((ARCHIVE_METHODS as readonly string[]).includes(raw.toLowerCase())) {
      word = { kind: 'agent', agent: raw.toLowerCase() as ArchiveMethod };
    } else if (raw.startsWith('policy:')) {
      let spec = raw.slice('policy:'.length);
      let greedy = true;
      const mode = /:(greedy|sampled)$/.exec(spec);
      if (mode) {
        greedy = mode[1] === 'greedy';
        spec = spec.slice(0, mode.index);
      }
      if (spec === '')
        return { ok: false, message: `"${raw}": policy: needs a checkpoint (prior, random:S or a file)` };
      word = { kind: 'policy', checkpoint: spec, greedy };
    } else if (raw.startsWith('design:')) {
      const file = raw.slice('design:'.length);
      if (file === '') return { ok: false, message: `"${raw}": design: needs a file` };
      word = { kind: 'design', file };
    } else if (raw.startsWith('orchestrator:')) {
      const model = raw.slice('orchestrator:'.length);
      if (model === '') return { ok: false, message: `"${raw}": orchestrator: needs a model name` };
      word = { kind: 'orchestrator', model };
    } else {
      return {
        ok: false,
        message: `unknown method "${raw}"; use ${ARCHIVE_METHODS.join(', ')}, policy:<checkpoint>[:sampled], design:<file> or orchestrator:<model>`,
      };
    }
    const key = JSON.stringify(word);
    if (seen.has(key)) return { ok: false, message: `method "${raw}" is listed twice` };
    seen.add(key);
    words.push(word);
  }
  if (words.length === 0) return { ok: false, message: 'no methods given' };
  return { ok: true, words };
}

/** Why a method cannot run in this build, or null when it can. The code never assumes an orchestrator. */
export function unavailableReason(m: Method, orchestratorAvailable = false): string | null {
  if (m.kind === 'orchestrator' && !orchestratorAvailable)
    return isProviderOrchestrator(m)
      ? `"${methodId(m)}" needs a provider (the provider backend's endpoint writes the designs), so it was not run`
      : `the orchestrator model is not available here (baton eval runs tiny, the models this build ships and model folders; the page runs tiny and the models this build ships), so "${methodId(m)}" was not run`;
  return null;
}

/** `orchestrator:provider[:<model>]`: the provider's model (or the one named) writes the design. */
export function isProviderOrchestrator(m: Method): m is Extract<Method, { kind: 'orchestrator' }> {
  return m.kind === 'orchestrator' && (m.model === 'provider' || m.model.startsWith('provider:'));
}

/** The model an `orchestrator:provider:<model>` names, or null for the endpoint's own model. */
export const providerOrchestratorModel = (m: Extract<Method, { kind: 'orchestrator' }>): string | null =>
  m.model.startsWith('provider:') && m.model.length > 9 ? m.model.slice(9) : null;
