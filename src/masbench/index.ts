export {
  AXES,
  AxisSchema,
  MASBENCH_FORMAT,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  MasBenchTaskSchema,
  SPLITS,
  SubtaskSchema,
  type Axis,
  type MasBenchTask,
  type Split,
  type Subtask,
} from './schema.ts';
export {
  DEFAULT_DISTRACTORS,
  DEFAULT_MODULUS,
  TEST_SPLIT_EVERY,
  generateTask,
  generateTasks,
  splitForSeed,
  taskId,
  taskSeed,
  type GenerateOptions,
} from './generate.ts';
export {
  findCycle,
  graphProblems,
  measureAxes,
  neededSubtaskIds,
  type AxisValues,
  type GraphProblem,
  type SubtaskGraph,
} from './measure.ts';
export { fromJsonl, toJsonl, MAX_LINE_CHARS, type JsonlProblem } from './jsonl.ts';
export { checkTaskAnswer } from './grade.ts';
export { taskOfMasbench } from './trace-task.ts';
