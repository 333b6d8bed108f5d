import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_DESCRIPTION,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
} from '@opentelemetry/semantic-conventions/incubating';

/**
 * Attribute names written and read by the OTLP bridge. The OpenTelemetry GenAI names come from
 * `@opentelemetry/semantic-conventions` (its `incubating` entry: the GenAI conventions are still
 * "development" status, so a bundler inlines the few strings used here). OpenInference has no JS
 * package in this project; its names are written out from the OpenInference specification
 * (arize-ai.github.io/openinference/spec), which is what Arize Phoenix reads. `baton.*` names carry
 * what neither convention has (agent types, design inputs, DAG edges, event order), so a Baton
 * trace comes back whole from its own export.
 */
export const GENAI = {
  operation: ATTR_GEN_AI_OPERATION_NAME,
  provider: ATTR_GEN_AI_PROVIDER_NAME,
  /** Deprecated in favour of `gen_ai.provider.name`, still read by many backends; written too. */
  system: ATTR_GEN_AI_SYSTEM,
  requestModel: ATTR_GEN_AI_REQUEST_MODEL,
  responseModel: ATTR_GEN_AI_RESPONSE_MODEL,
  requestTemperature: ATTR_GEN_AI_REQUEST_TEMPERATURE,
  requestMaxTokens: ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  inputTokens: ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  outputTokens: ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  /** Older names for the same counts (OpenLLMetry wrote these); read, not written. */
  promptTokens: ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  completionTokens: ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  agentId: ATTR_GEN_AI_AGENT_ID,
  agentName: ATTR_GEN_AI_AGENT_NAME,
  agentDescription: ATTR_GEN_AI_AGENT_DESCRIPTION,
  conversationId: ATTR_GEN_AI_CONVERSATION_ID,
  workflowName: ATTR_GEN_AI_WORKFLOW_NAME,
  inputMessages: ATTR_GEN_AI_INPUT_MESSAGES,
  outputMessages: ATTR_GEN_AI_OUTPUT_MESSAGES,
  errorType: ATTR_ERROR_TYPE,
} as const;

export const OPERATION = {
  chat: GEN_AI_OPERATION_NAME_VALUE_CHAT,
  textCompletion: GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
  generateContent: GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  invokeAgent: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  invokeWorkflow: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} as const;

export const RESOURCE = { serviceName: ATTR_SERVICE_NAME, serviceVersion: ATTR_SERVICE_VERSION } as const;

/** OpenInference (Arize Phoenix). Lists are flattened with zero-based indices. */
export const OI = {
  spanKind: 'openinference.span.kind',
  inputValue: 'input.value',
  inputMime: 'input.mime_type',
  outputValue: 'output.value',
  outputMime: 'output.mime_type',
  modelName: 'llm.model_name',
  system: 'llm.system',
  provider: 'llm.provider',
  promptTokens: 'llm.token_count.prompt',
  completionTokens: 'llm.token_count.completion',
  totalTokens: 'llm.token_count.total',
  invocationParameters: 'llm.invocation_parameters',
  /** `llm.input_messages.{i}.message.role` / `.content`. */
  inputMessagesPrefix: 'llm.input_messages.',
  outputMessagesPrefix: 'llm.output_messages.',
  agentName: 'agent.name',
  sessionId: 'session.id',
  graphNodeId: 'graph.node.id',
  graphNodeParentId: 'graph.node.parent_id',
} as const;

/** OpenLLMetry's older flattened prompt/completion attributes (`gen_ai.prompt.{i}.role`, …); read only. */
export const OPENLLMETRY = {
  promptPrefix: 'gen_ai.prompt.',
  completionPrefix: 'gen_ai.completion.',
  spanKind: 'traceloop.span.kind',
  entityName: 'traceloop.entity.name',
  requestType: 'llm.request.type',
  usageTotal: 'llm.usage.total_tokens',
} as const;

/** What only Baton knows. Values that are records are JSON strings. */
export const BATON = {
  traceId: 'baton.trace.id',
  title: 'baton.trace.title',
  createdAt: 'baton.trace.created_at',
  createdAtKnown: 'baton.trace.created_at_known',
  tags: 'baton.trace.tags',
  startedAt: 'baton.execution.started_at',
  groundTruth: 'baton.task.ground_truth',
  groundTruths: 'baton.task.ground_truths',
  taskSource: 'baton.task.source',
  taskSeed: 'baton.task.seed',
  designer: 'baton.designer',
  backend: 'baton.execution.backend',
  status: 'baton.execution.status',
  dom: 'baton.design.dom',
  thinking: 'baton.design.thinking',
  directAnswer: 'baton.design.direct_answer',
  construction: 'baton.construction',
  finalAnswer: 'baton.result.final_answer',
  answerAgent: 'baton.result.answer_agent',
  correct: 'baton.result.correct',
  trimmed: 'baton.trace.trimmed',
  agentType: 'baton.agent.type',
  agentInput: 'baton.agent.input',
  agentRole: 'baton.agent.role',
  agentParams: 'baton.agent.params',
  agentOrder: 'baton.agent.order',
  agentStartInput: 'baton.agent.start_input',
  agentOutput: 'baton.agent.output',
  agentError: 'baton.agent.error',
  placeholder: 'baton.agent.placeholder',
  /** Position of the span's start / end / own event in `execution.events`. */
  startIndex: 'baton.event.start_index',
  endIndex: 'baton.event.end_index',
  eventIndex: 'baton.event.index',
  callId: 'baton.call.id',
  callLabel: 'baton.call.label',
  costUsd: 'baton.call.cost_usd',
  tokensEstimated: 'baton.call.tokens_estimated',
  callError: 'baton.call.error',
  linkType: 'baton.link.type',
  noteKind: 'baton.note.kind',
  noteText: 'baton.note.text',
  runStatus: 'baton.run.status',
} as const;

/** Span event names Baton writes. */
export const BATON_EVENTS = { note: 'baton.agent.note', runEnd: 'baton.run.end' } as const;

/** `baton.link.type` of a link that is a design edge (from the linked span's agent to this one). */
export const DESIGN_EDGE = 'design.edge';
