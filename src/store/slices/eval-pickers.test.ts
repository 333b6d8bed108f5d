import { describe, expect, it } from 'vitest';
import { evalConfigOf, DEFAULT_EVAL_DRAFT } from './eval.ts';
import {
  axesPicked,
  methodGroups,
  methodIds,
  savedCheckpointsOf,
  toggleAxisValue,
  toggleMethod,
} from './eval-pickers.ts';

describe('Evaluate pickers', () => {
  it('offer the archive agents, built-in policies, saved checkpoints and (not selectable) orchestrator models', () => {
    const groups = methodGroups({
      buildCheckpoints: ['trained:grpo:mixed:12'],
      orchModels: {
        status: 'ready',
        warnings: [],
        entries: [
          { id: 'baton-orchestrator-tiny', label: 'tiny', source: 'offline', sizeMB: {}, dtypes: ['q8'] },
        ] as never,
      },
    });
    const byTitle = Object.fromEntries(groups.map((g) => [g.title, g.choices]));
    expect(byTitle['Archive agents']?.map((c) => c.id)).toEqual(['cot', 'sc', 'debate', 'reflexion', 'ceo']);
    expect(byTitle['Saved checkpoints']?.map((c) => c.id)).toEqual([
      'policy:trained:grpo:mixed:12:greedy',
      'policy:trained:grpo:mixed:12:sampled',
    ]);
    const orch = byTitle['Orchestrator models']?.[0];
    expect(orch?.id).toBe('orchestrator:baton-orchestrator-tiny');
    expect(orch?.unavailable).toMatch(/not available/);
    // Every selectable choice is a method the evaluation accepts.
    for (const c of groups.flatMap((g) => g.choices).filter((c) => c.unavailable === null))
      expect(evalConfigOf({ ...DEFAULT_EVAL_DRAFT, methods: c.id }).ok).toBe(true);
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
