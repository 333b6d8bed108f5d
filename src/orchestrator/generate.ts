/**
 * One generation with a loaded model: the prompt through the tokenizer (its chat template for chat
 * models, plain text for the tiny model's own format), `model.generate` with streamed text,
 * interruption, temperature and seed, and any logits processors (constrained decoding plugs in
 * here), timed.
 *
 * transformers.js decodes in one `await`ed loop; a page or worker that must hear "stop" while it
 * runs passes `yieldEach`, awaited before every forward pass (a macrotask lets messages in), and
 * aborts `signal`, which flips transformers.js' `InterruptableStoppingCriteria` at the next token.
 */
import type { ChatMessage } from '../core/trace.ts';
import type { LoadedLm, Transformers } from './load.ts';

/** Chat messages (through the chat template), plain text, or token ids exactly as the model reads them. */
export type Prompt =
  { kind: 'chat'; messages: ChatMessage[] } | { kind: 'text'; text: string } | { kind: 'ids'; ids: number[] };

export interface GenerateOptions {
  prompt: Prompt;
  /** 0 = greedy. */
  temperature: number;
  seed: number;
  maxNewTokens: number;
  /**
   * Builds the logits processors for this generation (instances of transformers.js'
   * `LogitsProcessor`, whose class comes from `tf`): e.g. constrained decoding.
   */
  logitsProcessors?: (tf: Transformers, lm: LoadedLm) => unknown[] | Promise<unknown[]>;
  /**
   * After every token: the text it added (empty while a multi-byte character is incomplete, or when
   * decoding revised earlier text) and the tokens so far.
   */
  onText?: (delta: string, tokens: number) => void;
  signal?: AbortSignal;
  yieldEach?: () => Promise<void>;
}

export interface Generation {
  /** The prompt exactly as tokenized. */
  promptText: string;
  promptTokens: number;
  /** What the model wrote, special tokens removed. */
  rawOutput: string;
  tokens: number;
  firstTokenMs: number;
  generateMs: number;
  /** Tokens after the first one per second of decoding (0 with fewer than two tokens). */
  tokensPerSecond: number;
  stopReason: 'eos' | 'max-tokens' | 'interrupted';
}

const now = (): number => performance.now();

/** The prompt text a model reads: the chat template for chat models, the text itself otherwise. */
export function promptText(lm: LoadedLm, prompt: Prompt): string {
  if (prompt.kind === 'text') return prompt.text;
  if (prompt.kind === 'ids') return lm.tokenizer.decode(prompt.ids, { skip_special_tokens: false });
  return lm.tokenizer.apply_chat_template(prompt.messages as never, {
    tokenize: false,
    add_generation_prompt: true,
  }) as string;
}

export async function generate(lm: LoadedLm, o: GenerateOptions): Promise<Generation> {
  const { tf, tokenizer, model } = lm;
  const text = promptText(lm, o.prompt);
  const inputs =
    o.prompt.kind === 'ids'
      ? (() => {
          const ids = BigInt64Array.from(o.prompt.ids.map(BigInt));
          const dims = [1, ids.length];
          return {
            input_ids: new tf.Tensor('int64', ids, dims),
            attention_mask: new tf.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
          };
        })()
      : tokenizer(text);
  const promptTokens = (inputs.input_ids as { dims: number[] }).dims.at(-1) ?? 0;

  const stopper = new tf.InterruptableStoppingCriteria();
  const onAbort = (): void => stopper.interrupt();
  if (o.signal?.aborted) stopper.interrupt();
  o.signal?.addEventListener('abort', onAbort, { once: true });

  const t0 = now();
  let first = -1;
  let last = t0;
  const generated: number[] = [];
  let shown = '';
  // Streams per token: the output decoded so far, minus what was already sent. A token that ends
  // inside a multi-byte character decodes to U+FFFD at the end; that tail waits for the next token
  // (and the final text is `rawOutput`).
  let promptSeen = false;
  const streamer = new (class extends tf.BaseStreamer {
    override put(value: bigint[][]): void {
      // transformers.js first puts the prompt, then one token per step.
      if (!promptSeen) {
        promptSeen = true;
        return;
      }
      for (const id of value[0] ?? []) generated.push(Number(id));
      last = now();
      if (first < 0) first = last;
      if (!o.onText) return;
      let text = tokenizer.decode(generated, { skip_special_tokens: true });
      // An incomplete character is at most 3 bytes: hold back up to 3 replacement characters.
      for (let i = 0; i < 3 && text.endsWith('\uFFFD'); i++) text = text.slice(0, -1);
      const delta = text.startsWith(shown) ? text.slice(shown.length) : '';
      shown = text;
      o.onText(delta, generated.length);
    }
    override end(): void {}
  })();

  const processors = o.logitsProcessors ? await o.logitsProcessors(tf, lm) : [];
  const list = new tf.LogitsProcessorList();
  for (const p of processors) list.push(p as never);

  if (o.temperature > 0) tf.random.seed(o.seed);
  // Yield to the event loop before each forward pass, so an interrupt message can arrive.
  const m = model as unknown as { forward: (x: unknown) => Promise<unknown> };
  const forward = m.forward;
  if (o.yieldEach) {
    const yieldEach = o.yieldEach;
    m.forward = async (x: unknown) => {
      await yieldEach();
      return forward.call(model, x);
    };
  }
  let sequences: { tolist(): bigint[][] };
  try {
    sequences = (await model.generate({
      ...inputs,
      max_new_tokens: o.maxNewTokens,
      do_sample: o.temperature > 0,
      ...(o.temperature > 0 ? { temperature: o.temperature, top_k: 0 } : {}),
      logits_processor: list,
      stopping_criteria: [stopper] as never,
      streamer,
    } as never)) as unknown as { tolist(): bigint[][] };
  } finally {
    if (o.yieldEach) delete (m as { forward?: unknown }).forward;
    o.signal?.removeEventListener('abort', onAbort);
  }
  const end = now();
  const ids = (sequences.tolist()[0] ?? []).slice(promptTokens).map(Number);
  const lastId = ids.at(-1);
  const stopReason: Generation['stopReason'] =
    lastId !== undefined && lm.eosIds.includes(lastId)
      ? 'eos'
      : stopper.interrupted && ids.length < o.maxNewTokens
        ? 'interrupted'
        : 'max-tokens';
  const rawOutput = tokenizer.decode(ids, { skip_special_tokens: true });
  return {
    promptText: text,
    promptTokens,
    rawOutput,
    tokens: ids.length,
    firstTokenMs: first < 0 ? end - t0 : first - t0,
    generateMs: end - t0,
    tokensPerSecond: ids.length > 1 && last > first ? ((ids.length - 1) * 1000) / (last - first) : 0,
    stopReason,
  };
}
