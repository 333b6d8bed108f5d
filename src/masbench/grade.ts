/** Grading a solver's output on a MASBench task with the general answer checker. */
import { checkAnswer, type CheckResult } from '../answers/index.ts';
import type { MasBenchTask } from './schema.ts';

/** All asked answers must be present and right, in the order asked. */
export function checkTaskAnswer(output: string, task: Pick<MasBenchTask, 'answers'>): CheckResult {
  return checkAnswer(output, task.answers, task.answers.length > 1 ? 'multi' : 'math');
}
