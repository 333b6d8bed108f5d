/**
 * A sampled design of a training iteration opened in Build (the Train slice's `openSampleInBuild`):
 * Build's form set to the sample's MASBench task.
 */
import type { IterationMetrics } from '../../train/index.ts';
import type { Axis, BuildForm } from '../construction.ts';

/** A MASBench task id `masbench-<axis>-<value>-<seed>` → its seed. */
const seedOfTaskId = (id: string): number | null => {
  const m = /-(\d+)$/.exec(id);
  return m ? Number(m[1]) : null;
};

/** `form` with the sample's task (axis, value, seed), or null when its id names no seed. */
export function formForSample(
  form: BuildForm,
  sample: IterationMetrics['samples'][number],
): BuildForm | null {
  const seed = seedOfTaskId(sample.taskId);
  if (seed === null) return null;
  return { ...form, source: 'masbench', axis: sample.axis as Axis, value: sample.value, taskSeed: seed };
}
