import { describe, expect, it } from 'vitest';
import { anchorNode, keepPlace, type Placed } from './anchor.ts';

const at = (id: string, x: number, y: number): Placed => ({ id, position: { x, y } });
const VIEW = { width: 1000, height: 600 };
const vp = { x: 0, y: 0, zoom: 1 };

describe('keeping the reader’s place', () => {
  const before = [at('a', 0, 0), at('b', 400, 250), at('far', 5000, 5000)];

  it('holds the selected node when it is on screen, else the one at the centre', () => {
    expect(anchorNode(before, vp, VIEW.width, VIEW.height, 'a')?.id).toBe('a');
    expect(anchorNode(before, vp, VIEW.width, VIEW.height, 'far')?.id).toBe('b');
    expect(anchorNode(before, vp, VIEW.width, VIEW.height, null)?.id).toBe('b');
  });

  it('leaves the viewport alone when the anchor did not move', () => {
    const same = before.map((n) => at(n.id, n.position.x, n.position.y));
    expect(keepPlace(before, same, vp, VIEW.width, VIEW.height, 'a')).toBe(vp);
  });

  it('shifts the viewport so the anchor stays at the same point on screen', () => {
    const zoomed = { x: 10, y: 20, zoom: 0.5 };
    const after = [at('a', 100, -40), at('b', 0, 0), at('far', 0, 0)];
    const next = keepPlace(before, after, zoomed, VIEW.width, VIEW.height, 'a')!;
    const screen = (p: { x: number; y: number }, v: typeof zoomed) => ({
      x: p.x * v.zoom + v.x,
      y: p.y * v.zoom + v.y,
    });
    expect(screen(after[0]!.position, next)).toEqual(screen(before[0]!.position, zoomed));
    expect(next.zoom).toBe(0.5);
  });

  it('asks for a refit when the anchor is gone', () => {
    expect(keepPlace(before, [at('other', 0, 0)], vp, VIEW.width, VIEW.height, null)).toBeNull();
  });
});
