export { runDesign, type RunBudget, type RunOptions } from './run.ts';
export {
  backendFromSpec,
  intermediateExecutorFromSpec,
  secretsOf,
  stepResultOf,
  type BackendSpec,
  type IntermediateSpec,
  type RemoteSpec,
  type SimulatedSpec,
} from './backend-spec.ts';
export { remoteBackend, publicBaseUrl, type RemoteWhere } from './remote.ts';
export { simulatedBackend, type SimulatedBackendOptions } from './sim/index.ts';
export { EventLog, runningTrace } from './events.ts';
export {
  ORIGINAL_TASK_HEADING,
  PLACEHOLDER_PREFIX,
  SUBTASK_HEADING,
  agentInput,
  isPlaceholder,
  placeholderFor,
} from './input.ts';
export { AGENT_DEFAULTS, AGENT_RUNNERS } from './agents/index.ts';
export {
  AgentCallError,
  type AgentContext,
  type AgentRunner,
  type CallKind,
  type ChatBackend,
  type ChatCall,
  type ChatOptions,
  type ChatReply,
} from './types.ts';
export {
  evalExecutor,
  type EvalExecutorHandle,
  type EvalExecutorOptions,
  type EvalJobRef,
  type EvalOutcome,
} from './eval-exec.ts';
