import { describe, expect, it } from 'vitest';
import { evalConfigOf, DEFAULT_EVAL_DRAFT } from './eval.ts';
import {
  axesPicked,
  methodGroups,
  methodIds,
  HUB_MODEL_NEEDS,
  PROVIDER_ORCHESTRATOR_NEEDS,
  runsOnPage,
  savedCheckpointsOf,
  toggleAxisValue,
  toggleMethod,
} from './eval-pickers.ts';

describe('Evaluate pickers', () => {
  it('offer the archive agents, built-in policies, saved checkpoints, the shipped orchestrator models and (not selectable) hub ones', () => {
    const groups = methodGroups({
      buildCheckpoints: ['trained:grpo:mixed:12'],
      backend: 'simulator',
      orchModels: {
        status: 'ready',
        warnings: [],
        entries: [
          { id: 'baton-orchestrator-tiny', label: 'tiny', source: 'offline', sizeMB: {}, dtypes: ['q8'] },
          { id: 'qwen2.5-0.5b-instruct', label: 'Qwen', source: 'hub', sizeMB: {}, dtypes: ['q4'] },
        ] as never,
      },
    });
    const byTitle = Object.fromEntries(groups.map((g) => [g.title, g.choices]));
    expect(byTitle['Archive agents']?.map((c) => c.id)).toEqual(['cot', 'sc', 'debate', 'reflexion', 'ceo']);
    expect(byTitle['Saved checkpoints']?.map((c) => c.id)).toEqual([
      'policy:trained:grpo:mixed:12:greedy',
      'policy:trained:grpo:mixed:12:sampled',
    ]);
    const [provider, orch, hub] = byTitle['Orchestrators'] ?? [];
    expect(orch?.id).toBe('orchestrator:baton-orchestrator-tiny');
    expect(orch?.unavailable).toBeNull();
    expect(hub?.id).toBe('orchestrator:qwen2.5-0.5b-instruct');
    expect(hub?.unavailable).toBe(HUB_MODEL_NEEDS);
    // The provider as the orchestrator needs the provider backend, which writes its designs.
    expect(provider?.id).toBe('orchestrator:provider');
    expect(provider?.unavailable).toBe(PROVIDER_ORCHESTRATOR_NEEDS);
    // Every selectable choice is a method the evaluation accepts.
    for (const c of groups.flatMap((g) => g.choices).filter((c) => c.unavailable === null))
      expect(evalConfigOf({ ...DEFAULT_EVAL_DRAFT, methods: c.id }).ok).toBe(true);
  });

  it('offer the provider as the orchestrator on the provider backend', () => {
    const groups = methodGroups({
      buildCheckpoints: [],
      backend: 'provider',
      orchModels: { status: 'loading' } as never,
    });
    const orchestrators = groups.find((g) => g.title === 'Orchestrators')?.choices ?? [];
    expect(orchestrators.map((c) => [c.id, c.unavailable])).toEqual([['orchestrator:provider', null]]);
    expect(toggleMethod('cot,sc', 'orchestrator:provider', true)).toBe('cot,sc,orchestrator:provider');
    // The page counts its jobs over the methods it runs: the provider orchestrator, tiny and the
    // models this build ships, not a hub model.
    expect(runsOnPage({ kind: 'orchestrator', model: 'provider' })).toBe(true);
    expect(runsOnPage({ kind: 'orchestrator', model: 'tiny' })).toBe(true);
    expect(
      runsOnPage({ kind: 'orchestrator', model: 'baton-orchestrator-tiny' }, ['baton-orchestrator-tiny']),
    ).toBe(true);
    expect(
      runsOnPage({ kind: 'orchestrator', model: 'qwen2.5-0.5b-instruct' }, ['baton-orchestrator-tiny']),
    ).toBe(false);
    expect(runsOnPage({ kind: 'agent', agent: 'cot' })).toBe(true);
  });

  it('edit the method words: on, off, order kept, typed forms normalised', () => {
    expect(methodIds('cot,policy:prior')).toEqual(['cot', 'policy:prior:greedy']);
    let m = toggleMethod('cot,sc', 'policy:trained:x:sampled', true);
    expect(m).toBe('cot,sc,policy:trained:x:sampled');
    m = toggleMethod(m, 'cot', false);
    expect(m).toBe('sc,policy:trained:x:sampled');
    expect(savedCheckpointsOf(`${m},policy:prior,policy:random:3`)).toEqual(['trained:x']);
  });

  it('edit the axis words in canonical order', () => {
    expect(axesPicked('depth:2,6,robustness:4')).toMatchObject({
      depth: [2, 6],
      robustness: [4],
      breadth: [],
    });
    let a = toggleAxisValue('depth:6,robustness:4', 'depth', 2, true);
    expect(a).toBe('depth:2,6,robustness:4');
    a = toggleAxisValue(a, 'robustness', 4, false);
    expect(a).toBe('depth:2,6');
    a = toggleAxisValue(a, 'breadth', 12, true);
    expect(a).toBe('depth:2,6,breadth:12');
    expect(evalConfigOf({ ...DEFAULT_EVAL_DRAFT, axes: a }).ok).toBe(true);
  });
});
