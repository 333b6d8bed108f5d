/** Public API of the evaluation harness (pure; execution is injected). See docs/eval.md. */
export {
  ARCHIVE_METHODS,
  EVAL_FORMAT,
  EVAL_LIMITS,
  EvalConfigSchema,
  EvalDocumentSchema,
  EvalRowSchema,
  MethodSchema,
  TaskSetSchema,
  type ArchiveMethod,
  type AxisValues,
  type EvalConfig,
  type EvalDocument,
  type EvalRow,
  type Method,
  type MethodSummary,
  type Pair,
  type Score,
  type Summary,
  type TaskSet,
} from './schema.ts';
export {
  ARCHIVE_AGENTS,
  archiveDesign,
  methodId,
  methodLabel,
  parseMethodWords,
  unavailableReason,
  isProviderOrchestrator,
  providerOrchestratorModel,
  type MethodWord,
} from './methods.ts';
export {
  orchestratedTrace,
  withLocalUsage,
  orchestratorSpend,
  withOrchestratorCost,
  type DesignTask,
  type OrchestratorDesign,
  type OrchestratorFor,
} from './orchestrated.ts';
export {
  CHECKERS,
  masbenchTasks,
  parseAxes,
  parseTaskJsonl,
  tasksOfTraces,
  type Checker,
  type EvalTask,
} from './tasks.ts';
export { mcnemar, paretoFront, wilson, type ParetoPoint } from './stats.ts';
export { pairOf, scoreOf, summarize, type MethodInfo } from './summary.ts';
export {
  documentOf,
  methodInfos,
  planJobs,
  prepareTrace,
  rowKey,
  rowOf,
  runEvaluation,
  type EvalExecutor,
  type EvalProgress,
  type EvaluateOptions,
  type Job,
  type Outcome,
  type PolicyFor,
} from './harness.ts';
export { MAX_EVAL_CHARS, parseEvalDocument, rowsCsv, rowsJsonl, summaryCsv } from './export.ts';
