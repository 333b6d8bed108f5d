import { describe, expect, it } from 'vitest';
import { resetBaton, useBaton } from '../../store/store.ts';
import { NODE_SIZE } from '../../view/layout.ts';
import { fitNodeLabel, textWidth } from './node-label.ts';

describe('mini-graph node labels', () => {
  it('fits every role name of the pool whole inside the node (no "Jonsensus So")', () => {
    resetBaton();
    const roles = useBaton.getState().buildPool.roles;
    expect(roles.map((r) => r.name)).toContain('Consensus Solver');
    for (const role of roles) {
      const l = fitNodeLabel(role.name, NODE_SIZE.width);
      expect(l.lines.join(' ')).toBe(role.name);
      for (const line of l.lines)
        expect(textWidth(line, l.fontSize)).toBeLessThanOrEqual(NODE_SIZE.width - 24);
      expect(l.lines.length).toBeLessThanOrEqual(2);
    }
    expect(fitNodeLabel('Consensus Solver', NODE_SIZE.width).lines).toEqual(['Consensus', 'Solver']);
  });

  it('keeps short names on one line at full size, and cuts only what cannot fit, with an ellipsis', () => {
    expect(fitNodeLabel('Solver', 230)).toEqual({ lines: ['Solver'], fontSize: 40 });
    const long = fitNodeLabel('Supercalifragilisticexpialidocious', 230);
    expect(long.lines).toHaveLength(1);
    expect(long.lines[0]?.endsWith('…')).toBe(true);
    expect(textWidth(long.lines[0] as string, long.fontSize)).toBeLessThanOrEqual(230 - 24);
  });
});
