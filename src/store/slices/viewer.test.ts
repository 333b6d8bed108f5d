import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearLayoutCache, setLayoutWorkerClient } from '../services/layout.ts';
import { resetBaton, useBaton } from '../store.ts';
import type { LayoutWorkerClient } from '../../workers/layout.client.ts';
import type { Positions } from '../../design/layout.ts';

describe('viewer slice', () => {
  beforeEach(() => {
    resetBaton();
    clearLayoutCache();
  });
  afterEach(() => setLayoutWorkerClient(null));

  it('opens at the end, clamps and steps the replay position', () => {
    const s = () => useBaton.getState();
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

  it('rewinds when play is pressed at the end and stops at the end', () => {
    const s = () => useBaton.getState();
    s().openTraceView('t', 3);
    s().setReplayPlaying(true);
    expect(s().replayPosition).toBe(0);
    expect(s().replayPlaying).toBe(true);
    s().stepReplay(3);
    expect(s().replayPlaying).toBe(false);
  });

  it('lays out small graphs at once and big ones through the worker client', async () => {
    const s = () => useBaton.getState();
    s().requestLayout({ nodes: ['a', 'b'], edges: [{ from: 'a', to: 'b' }] });
    expect(s().layout).toMatchObject({ engine: 'dagre', pending: false });
    expect(s().layout.positions.b!.x).toBeGreaterThan(s().layout.positions.a!.x);

    let release: (p: Positions) => void = () => {};
    const calls: number[] = [];
    const fake: LayoutWorkerClient = {
      layout: (graph) => {
        calls.push(graph.nodes.length);
        return new Promise((ok) => (release = ok));
      },
      dispose: () => {},
    };
    setLayoutWorkerClient(fake);
    const nodes = Array.from({ length: 300 }, (_, i) => `n${i}`);
    const big = { nodes, edges: nodes.slice(1).map((to, i) => ({ from: `n${i}`, to })) };
    s().requestLayout(big);
    s().requestLayout(big);
    expect(calls).toEqual([300]);
    expect(s().layout).toMatchObject({ engine: 'layered', pending: true });
    expect(Object.keys(s().layout.positions)).toHaveLength(300);
    release({ n0: { x: 5, y: 6 } });
    await new Promise((ok) => setTimeout(ok, 0));
    expect(s().layout).toMatchObject({ engine: 'dagre', pending: false, positions: { n0: { x: 5, y: 6 } } });
  });
});
