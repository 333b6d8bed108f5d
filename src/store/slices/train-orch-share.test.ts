import { beforeEach, describe, expect, it } from 'vitest';
import { runInput } from '../services/train-orch-share.fixture.ts';
import { resetBaton, useBaton } from '../store.ts';
import { openOrchRunLink, orchShareActions, shareOrchRun } from './train-orch-share.ts';
import { IDLE_ORCH_TRAIN } from './train-orch.ts';

/**
 * The orchestrator mode's "Share link" and the shared run's view in the store: the link of the run
 * the page holds, opened again gives the same record; a run with nothing to share, a tampered link
 * and a link of another kind each end where the page shows them.
 */
const BASE = 'https://example.org/baton/#/train';

function holdRun(): ReturnType<typeof runInput> {
  const run = runInput(2);
  useBaton.setState({
    orchTrain: {
      ...IDLE_ORCH_TRAIN,
      status: 'paused',
      iteration: run.iteration,
      model: run.model,
      backend: run.backend as { backend: 'cpu'; reason: string },
      config: run.config as Record<string, unknown>,
      history: [...run.history],
      sampled: [...run.sampled],
      evaluation: run.evaluation,
    },
  });
  return run;
}

beforeEach(() => resetBaton());

describe('sharing an orchestrator run', () => {
  it('makes the link of the run held, and opening it shows the same run read-only', async () => {
    const run = holdRun();
    const link = await orchShareActions(useBaton).share(BASE);
    expect(link).not.toBeNull();
    expect(useBaton.getState().orchTrain.shareLink).toEqual(link);
    expect(link?.url).toMatch(/^https:\/\/example\.org\/baton\/#r=1\./);
    expect(link?.weights.overBy).toBeGreaterThan(0);

    const input = link?.url.slice(link.url.indexOf('#') + 1) ?? '';
    expect(orchShareActions(useBaton).open(input)).toBe('orchestrator');
    const shared = useBaton.getState().orchShared;
    expect(shared && 'record' in shared).toBe(true);
    if (shared && 'record' in shared) {
      expect(shared.record.iterations).toBe(2);
      expect(shared.record.config).toEqual(run.config);
      expect(shared.record.curves.kl).toEqual(run.history.map((m) => m.kl));
      expect(shared.record.evaluation).toEqual(run.evaluation);
    }
    // The same input again is a no-op: the record object is kept.
    const before = useBaton.getState().orchShared;
    expect(orchShareActions(useBaton).open(input)).toBe('orchestrator');
    expect(useBaton.getState().orchShared).toBe(before);
  });

  it('has nothing to share before the first iteration', async () => {
    expect(await shareOrchRun(useBaton.setState, useBaton.getState, BASE)).toBeNull();
    expect(useBaton.getState().orchTrain.problems[0]?.message).toMatch(/train at least one iteration/);
    expect(useBaton.getState().orchTrain.shareLink).toBeUndefined();
  });

  it('shows a tampered link’s problems, and leaves other links to the policy run’s view', async () => {
    holdRun();
    useBaton.setState({ orchTrain: { ...useBaton.getState().orchTrain, config: { groupSize: 0 } } });
    expect(await orchShareActions(useBaton).share(BASE)).toBeNull();
    expect(useBaton.getState().orchTrain.problems[0]?.message).toMatch(/config\.groupSize/);

    holdRun();
    const link = await orchShareActions(useBaton).share(BASE);
    const url = link?.url ?? '';
    // Change one character inside the compressed payload: decoding or the schema says no.
    const at = url.length - 20;
    const flipped = url.slice(0, at) + (url[at] === 'A' ? 'B' : 'A') + url.slice(at + 1);
    const kind = openOrchRunLink(useBaton.setState, useBaton.getState, flipped);
    const s = useBaton.getState().orchShared;
    if (kind === 'orchestrator') expect(s && 'problems' in s && s.problems[0]?.code).toBe('E_TRAIN_LINK');
    else {
      // Unreadable: the construction-policy view reads it and says why.
      useBaton.getState().openTrainRunLink(flipped);
      const p = useBaton.getState().trainShared;
      expect(p && 'problems' in p && p.problems[0]?.message).toMatch(/link/i);
    }

    const huge = `r=1.${'A'.repeat(4_000_001)}`;
    expect(orchShareActions(useBaton).open(huge)).toBe('other');
    useBaton.getState().openTrainRunLink(huge);
    const p = useBaton.getState().trainShared;
    expect(p && 'problems' in p && p.problems[0]?.code).toBe('E_TOO_LARGE');
  });
});
