import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearLayoutCache, setLayoutWorkerClient } from '../services/layout.ts';
import { resetBaton, useBaton } from '../store.ts';
import { heldLayoutWorker } from '../../workers/index.ts';
import { layoutKey, layoutLayered, type LayoutGraph } from '../../view/layout.ts';

const s = () => useBaton.getState();

describe('viewer slice', () => {
  beforeEach(() => {
    resetBaton();
    clearLayoutCache();
  });
  afterEach(() => setLayoutWorkerClient(null));

  it('opens at the end, clamps and steps the replay position', () => {
    s().openTraceView('t1', 10);
    expect(s().replayPosition).toBe(10);
    s().stepReplay(-3);
    expect(s().replayPosition).toBe(7);
    s().setReplayPosition(99);
    expect(s().replayPosition).toBe(10);
    s().setReplayPosition(-1);
    expect(s().replayPosition).toBe(0);
    s().selectAgent('a');
    s().openTraceView('t1', 10);
    expect(s().selectedAgentId).toBe('a');
    s().openTraceView('t2', 4);
    expect(s().selectedAgentId).toBeNull();
    expect(s().replayPosition).toBe(4);
  });

  it('opens another trace with its final agent in the inspector, and keeps the reader’s choice after', () => {
    s().openTraceView('t1', 10, 'final');
    expect(s().selectedAgentId).toBe('final');
    s().selectAgent(null);
    s().openTraceView('t1', 10, 'final');
    expect(s().selectedAgentId).toBeNull();
    s().openTraceView('t2', 4, 'judge');
    expect(s().selectedAgentId).toBe('judge');
  });

  it('rewinds when play is pressed at the end and stops at the end', () => {
    s().openTraceView('t', 3);
    s().setReplayPlaying(true);
    expect(s().replayPosition).toBe(0);
    expect(s().replayPlaying).toBe(true);
    s().stepReplay(3);
    expect(s().replayPlaying).toBe(false);
  });

  it('lays out small graphs at once and shows big ones only when the worker answers', async () => {
    s().requestLayout({ nodes: ['a', 'b'], edges: [{ from: 'a', to: 'b' }] });
    expect(s().layout).toMatchObject({ source: 'main', pending: false, error: null });
    expect(s().layout.positions.b!.x).toBeGreaterThan(s().layout.positions.a!.x);

    const worker = heldLayoutWorker();
    setLayoutWorkerClient(worker.client);
    const big = chain(300);
    s().requestLayout(big);
    s().requestLayout(big);
    expect(worker.calls).toEqual([300]);
    // Nothing to draw yet: the page shows its placeholder.
    expect(s().layout).toEqual({
      key: layoutKey(big),
      positions: {},
      source: null,
      pending: true,
      error: null,
    });
    const answer = { n0: { x: 5, y: 6 } };
    worker.answer(answer);
    await settle();
    expect(s().layout).toEqual({
      key: layoutKey(big),
      positions: answer,
      source: 'worker',
      pending: false,
      error: null,
    });
    // Shown once and for good: asking again changes nothing, not even the object.
    s().requestLayout(big);
    expect(s().layout.positions).toBe(answer);
    expect(worker.calls).toEqual([300]);
  });

  it("drops a worker answer for a graph no longer shown, and keeps it for when it's back", async () => {
    const worker = heldLayoutWorker();
    setLayoutWorkerClient(worker.client);
    const big = chain(100);
    const small = chain(3);
    s().requestLayout(big);
    s().requestLayout(small);
    const smallLayout = s().layout;
    expect(smallLayout).toMatchObject({ key: layoutKey(small), source: 'main', pending: false });
    const answer = { n0: { x: 1, y: 1 } };
    worker.answer(answer);
    await settle();
    expect(s().layout).toBe(smallLayout);
    s().requestLayout(big);
    expect(s().layout).toMatchObject({
      key: layoutKey(big),
      source: 'cache',
      pending: false,
      positions: answer,
    });
    expect(worker.calls).toEqual([100]);
  });

  it('shows the layout computed on the main thread when the worker fails', async () => {
    const worker = heldLayoutWorker();
    setLayoutWorkerClient(worker.client);
    const big = chain(60);
    s().requestLayout(big);
    worker.fail('The layout worker sent a malformed message.');
    await settle();
    expect(s().layout).toMatchObject({
      key: layoutKey(big),
      source: 'main',
      pending: false,
      error: 'The layout worker sent a malformed message.',
    });
    expect(s().layout.positions).toEqual(layoutLayered(big));
  });
});

/** n agents in a chain. */
function chain(n: number): LayoutGraph {
  const nodes = Array.from({ length: n }, (_, i) => `n${i}`);
  return { nodes, edges: nodes.slice(1).map((to, i) => ({ from: `n${i}`, to })) };
}

const settle = (): Promise<void> => new Promise((ok) => setTimeout(ok, 0));
