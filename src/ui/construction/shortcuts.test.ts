import { describe, expect, it } from 'vitest';
import { digitFor } from './Distribution.tsx';
import { commandFor, SHORTCUTS, type KeyLike } from './shortcuts.ts';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('build shortcuts', () => {
  it('maps keys to commands', () => {
    expect(commandFor(key('s'))).toEqual({ kind: 'step' });
    expect(commandFor(key('S', { shiftKey: true }))).toEqual({ kind: 'step' });
    expect(commandFor(key('g'))).toEqual({ kind: 'greedy' });
    expect(commandFor(key('u'))).toEqual({ kind: 'undo' });
    expect(commandFor(key('z', { ctrlKey: true }))).toEqual({ kind: 'undo' });
    expect(commandFor(key('Z', { ctrlKey: true, shiftKey: true }))).toEqual({ kind: 'redo' });
    expect(commandFor(key('y', { metaKey: true }))).toEqual({ kind: 'redo' });
    expect(commandFor(key('Delete'))).toEqual({ kind: 'delete' });
    expect(commandFor(key('e'))).toEqual({ kind: 'exit' });
    expect(commandFor(key(' '))).toEqual({ kind: 'autoplay' });
    expect(commandFor(key('1'))).toEqual({ kind: 'pick', column: 0 });
    expect(commandFor(key('0'))).toEqual({ kind: 'pick', column: 9 });
    expect(commandFor(key('s', { ctrlKey: true }))).toBeNull();
    expect(commandFor(key('s', { altKey: true }))).toBeNull();
    expect(commandFor(key('x'))).toBeNull();
  });

  it('labels bars with the digit that picks them', () => {
    for (let c = 0; c < 10; c++) {
      const d = digitFor(c);
      expect(d).not.toBeNull();
      expect(commandFor(key(d as string))).toEqual({ kind: 'pick', column: c });
    }
    expect(digitFor(10)).toBeNull();
  });

  it('documents every command it handles', () => {
    expect(SHORTCUTS.map((s) => s.keys).join(' ')).toMatch(/S.*G.*Del.*E.*U.*Ctrl\+Z.*Ctrl\+Y.*Space/);
  });
});
