import { readFileSync } from 'node:fs';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MAX_SEED, TaskCell } from './TaskCell.tsx';
import { wholeNumber } from './whole-number.ts';

describe('the half-typed number rule of the MASBench task cell', () => {
  it('takes a whole number in range, and nothing else', () => {
    expect(wholeNumber('12', 2, 12, 'Value')).toEqual({ ok: true, value: 12 });
    expect(wholeNumber(' 7 ', 2, 12, 'Value')).toEqual({ ok: true, value: 7 });
    expect(wholeNumber('+3', 2, 12, 'Value')).toEqual({ ok: true, value: 3 });
    expect(wholeNumber(String(MAX_SEED), 0, MAX_SEED, 'Seed')).toEqual({ ok: true, value: MAX_SEED });
    // Half-typed or out of range: the task keeps its value and the cell says what it needs.
    for (const text of ['', '1', '3.', '3.5', '-', '-3', '1e1', '0x5', '13', 'abc'])
      expect(wholeNumber(text, 2, 12, 'Value'), text).toEqual({
        ok: false,
        message: 'Value: a whole number from 2 to 12',
      });
    expect(wholeNumber(String(MAX_SEED + 1), 0, MAX_SEED, 'Seed').ok).toBe(false);
  });

  it('renders one cell with each page’s test ids and the task’s values', () => {
    const out = renderToStaticMarkup(
      <TaskCell
        task={{ axis: 'breadth', value: 5, seed: 9 }}
        onChange={() => undefined}
        testIds={{ axis: 'a', value: 'v', seed: 's' }}
        seedLabel="Task seed"
      />,
    );
    expect(out).toMatch(/<option value="breadth" selected="">/);
    expect(out).toContain('data-testid="v" value="5"');
    expect(out).toContain('data-testid="s" value="9"');
    expect(out).toContain('Task seed');
    expect(out).toContain('Value (2–12)');
  });

  it('is the one task cell of Build, Run and Orchestrate', () => {
    for (const file of [
      '../construction/TaskFields.tsx',
      '../run/TaskPicker.tsx',
      '../orchestrate/TaskPanel.tsx',
    ]) {
      const src = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(src, file).toContain('<TaskCell');
      expect(src, file).not.toMatch(/type="number"[^>]*\n?[^>]*(bench|task)-(value|seed)/);
    }
  });
});
