/**
 * Task distributions the trainer draws from: each preset says what the policy should learn and
 * which MASBench axes and values its tasks come from. Training draws only `train`-split seeds and
 * evaluation only `test`-split seeds (masbench's `splitForSeed`), so the two never share a task.
 */
import { createRng } from '../core/rng.ts';
import {
  generateTask,
  splitForSeed,
  taskSeed,
  type Axis,
  type MasBenchTask,
  type Split,
} from '../masbench/index.ts';
import type { PresetName } from './config.ts';

export interface Preset {
  name: PresetName;
  /** What a policy trained on it should learn. */
  learns: string;
  draws: readonly { axis: Axis; values: readonly number[] }[];
}

const VALUES = [2, 3, 4, 5, 6] as const;

export const PRESET_TABLE: Readonly<Record<PresetName, Preset>> = {
  depth: {
    name: 'depth',
    learns: 'chain agents along a long dependency chain, so no agent carries the whole chain alone',
    draws: [{ axis: 'depth', values: VALUES }],
  },
  parallel: {
    name: 'parallel',
    learns: 'give independent sub-problems their own branches, then merge them',
    draws: [{ axis: 'parallel', values: VALUES }],
  },
  robustness: {
    name: 'robustness',
    learns: 'add a verifier where the question carries misleading notes',
    draws: [{ axis: 'robustness', values: VALUES }],
  },
  mixed: {
    name: 'mixed',
    learns: 'read the task shape and pick the structure that fits it, at the lowest token cost',
    draws: [
      { axis: 'depth', values: VALUES },
      { axis: 'parallel', values: VALUES },
      { axis: 'robustness', values: VALUES },
      { axis: 'breadth', values: VALUES },
    ],
  },
};

/**
 * `count` tasks of a preset from `split`, deterministic in `baseSeed`: candidate k has seed
 * taskSeed(baseSeed, k) and is kept when the seed is in `split`; its axis and value are drawn
 * from a generator seeded with the task seed.
 */
export function drawTasks(preset: Preset, baseSeed: number, count: number, split: Split): MasBenchTask[] {
  const out: MasBenchTask[] = [];
  for (let k = 0; out.length < count; k++) {
    const seed = taskSeed(baseSeed, k);
    if (splitForSeed(seed) !== split) continue;
    const rng = createRng(seed);
    const d = rng.pick(preset.draws);
    out.push(generateTask({ axis: d.axis, value: rng.pick(d.values), seed }));
  }
  return out;
}
