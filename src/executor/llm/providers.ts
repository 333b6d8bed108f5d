/**
 * Provider presets. `cors` records what is known about calling the provider directly from a
 * web page; see docs/providers.md for the evidence and for how to open local servers.
 */

export type ProviderId =
  | 'openai'
  | 'together'
  | 'openrouter'
  | 'groq'
  | 'deepseek'
  | 'ollama'
  | 'lmstudio'
  | 'llamacpp'
  | 'vllm'
  | 'custom';

/**
 * - 'reported-ok': cross-origin calls from any page are widely reported to work. Not a
 *   documented guarantee; providers change this.
 * - 'local-config': a server on the user's machine; whether it answers the page depends on
 *   its origin settings (defaults noted per preset).
 * - 'unknown': not verified, or reports conflict. Use "Test connection" before a run.
 */
export type CorsSupport = 'reported-ok' | 'local-config' | 'unknown';

export interface ProviderPreset {
  id: ProviderId;
  label: string;
  /** OpenAI-compatible base URL; the client appends /chat/completions and /models. */
  baseUrl: string;
  needsKey: boolean;
  /**
   * A server on the user's machine: its models have no price, so its default budget has no dollar
   * limit (a token limit instead; see the Settings slice).
   */
  local: boolean;
  cors: CorsSupport;
  /** Whether to send `stream_options: { include_usage: true }` when streaming. */
  streamUsage: boolean;
  /** An example model id, to prefill the model field. */
  exampleModel: string;
  note: string;
}

export const PROVIDER_PRESETS: Readonly<Record<ProviderId, ProviderPreset>> = {
  openai: {
    id: 'openai',
    local: false,
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    cors: 'reported-ok',
    streamUsage: true,
    exampleModel: 'gpt-4o-mini',
    note: 'Browser calls are widely reported to work. The key is visible to this page: use a project key with a spend limit.',
  },
  together: {
    id: 'together',
    local: false,
    label: 'Together AI',
    baseUrl: 'https://api.together.xyz/v1',
    needsKey: true,
    cors: 'unknown',
    streamUsage: true,
    exampleModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    note: 'Browser (CORS) access not verified. Run "Test connection"; if it fails with a network error, use a local proxy.',
  },
  openrouter: {
    id: 'openrouter',
    local: false,
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    needsKey: true,
    cors: 'reported-ok',
    streamUsage: true,
    exampleModel: 'openai/gpt-4o-mini',
    note: 'Accepts browser calls and routes to many vendors; model ids are "vendor/model".',
  },
  groq: {
    id: 'groq',
    local: false,
    label: 'Groq',
    baseUrl: 'https://api.groq.com/openai/v1',
    needsKey: true,
    cors: 'unknown',
    streamUsage: true,
    exampleModel: 'llama-3.1-8b-instant',
    note: 'Browser (CORS) access not verified. Run "Test connection" first. Low rate limits on free keys: expect 429s.',
  },
  deepseek: {
    id: 'deepseek',
    local: false,
    label: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    needsKey: true,
    cors: 'unknown',
    streamUsage: true,
    exampleModel: 'deepseek-chat',
    note: 'Reports on browser (CORS) access conflict, including preflight refusals. Run "Test connection" first.',
  },
  ollama: {
    id: 'ollama',
    local: true,
    label: 'Ollama (local)',
    baseUrl: 'http://localhost:11434/v1',
    needsKey: false,
    cors: 'local-config',
    streamUsage: true,
    exampleModel: 'llama3.2:1b',
    note: 'Allows pages on localhost/127.0.0.1 (any port) by default; for other origins set OLLAMA_ORIGINS and restart Ollama.',
  },
  lmstudio: {
    id: 'lmstudio',
    local: true,
    label: 'LM Studio (local)',
    baseUrl: 'http://localhost:1234/v1',
    needsKey: false,
    cors: 'local-config',
    streamUsage: true,
    exampleModel: 'qwen2.5-1.5b-instruct',
    note: 'Start the server in LM Studio (Developer tab) and turn on "Enable CORS" so this page may call it.',
  },
  llamacpp: {
    id: 'llamacpp',
    local: true,
    label: 'llama.cpp server (local)',
    baseUrl: 'http://localhost:8080/v1',
    needsKey: false,
    cors: 'local-config',
    streamUsage: true,
    exampleModel: 'default',
    note: 'llama-server answers any origin by default; a key is needed only if started with --api-key.',
  },
  vllm: {
    id: 'vllm',
    local: true,
    label: 'vLLM (local)',
    baseUrl: 'http://localhost:8000/v1',
    needsKey: false,
    cors: 'local-config',
    streamUsage: true,
    exampleModel: 'Qwen/Qwen2.5-1.5B-Instruct',
    note: 'vllm serve allows all origins by default (--allowed-origins); a key is needed only if started with --api-key.',
  },
  custom: {
    id: 'custom',
    local: false,
    label: 'Custom (OpenAI-compatible)',
    baseUrl: '',
    needsKey: false,
    cors: 'unknown',
    streamUsage: true,
    exampleModel: '',
    note: 'Any server with POST /chat/completions. It must send CORS headers for this page; run "Test connection".',
  },
};

/**
 * Checks a user-entered base URL: http(s) only, no credentials or query in it. Returns the
 * URL without a trailing slash, or a message saying what is wrong.
 */
export function normalizeBaseUrl(input: string): { ok: true; url: string } | { ok: false; message: string } {
  const trimmed = input.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return {
      ok: false,
      message: `"${trimmed}" is not a URL. Expected something like https://api.example.com/v1.`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `The base URL must start with http:// or https://, not ${url.protocol}//.` };
  }
  if (url.username || url.password) {
    return { ok: false, message: 'Put the API key in the key field, not in the base URL.' };
  }
  if (url.search || url.hash) {
    return { ok: false, message: 'The base URL must not have a query (?...) or fragment (#...).' };
  }
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
