export { createLlmClient } from './client.ts';
export type {
  CallOptions,
  ChatRequest,
  Completion,
  LlmClient,
  LlmClientConfig,
  RetryEvent,
  StreamOptions,
} from './types.ts';
export { Budget, heldNote } from './budget.ts';
export type { Amount, BudgetLimits, Reservation, ReserveResult } from './budget.ts';
export { describeStatus, redactSecrets, redactText } from './errors.ts';
export type { LlmError, LlmErrorKind, LlmResult, PartialOutput } from './errors.ts';
export { DEFAULT_PRICES, costOf, priceOf } from './pricing.ts';
export type { ModelPrice, PriceTable } from './pricing.ts';
export { PROVIDER_PRESETS, normalizeBaseUrl } from './providers.ts';
export type { CorsSupport, ProviderId, ProviderPreset } from './providers.ts';
export {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
  realSleep,
} from './retry.ts';
export type { RetryPolicy, Sleep } from './retry.ts';
export { SseParser } from './sse.ts';
export type { SseEvent } from './sse.ts';
export { estimatePromptTokens, estimateTokens, estimatedUsage } from './usage.ts';
export type { ChatMessage, Usage } from './usage.ts';
export { OTLP_CONTENT_TYPE, basicAuth, checkOtlpEndpoint, sendOtlp } from './otlp-send.ts';
export type { OtlpProtocol, OtlpSendOptions, OtlpSendResult } from './otlp-send.ts';
