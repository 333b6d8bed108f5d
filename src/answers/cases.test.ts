import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAnswer } from './check.ts';

// Published MAS-Orchestra case slides, read in place (see ../shared/data/README.md); never copied here.
const DIR = join(process.cwd(), '..', 'shared', 'data', 'mas-orchestra-cases');
const files = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.json')) : [];

describe.skipIf(files.length === 0)('checkAnswer on published case outputs', () => {
  it('agrees with integer comparison whenever both sides are plain integers', () => {
    let compared = 0;
    for (const file of files) {
      const slides = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as unknown[];
      for (const slide of slides) {
        const { execution_output: output, ground_truth: truth } = slide as Record<string, unknown>;
        const o = String(output ?? '').trim();
        const t = String(truth ?? '').trim();
        if (!/^\d+$/.test(o) || !/^\d+$/.test(t)) continue;
        compared++;
        expect(checkAnswer(o, t).correct, `${file}: ${o} vs ${t}`).toBe(Number(o) === Number(t));
      }
    }
    expect(compared).toBeGreaterThan(0);
  });
});
