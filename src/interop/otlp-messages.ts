/**
 * Chat messages and model output from an LLM span (otlp-import.ts), in each format it reads: the
 * GenAI conventions' `gen_ai.input.messages` / `gen_ai.output.messages` (and system instructions),
 * OpenInference's and OpenLLMetry's flattened lists, and OpenInference's `input.value` (which
 * Baton's own exports fill with `{"messages": [...]}`); then the first of several number or text
 * attributes, for the conventions' competing names.
 */
import { z } from 'zod';
import type { ChatMessage } from '../core/trace.ts';
import { GENAI, OI, OPENLLMETRY } from './attributes.ts';
import type { Attrs } from './otlp-attrs.ts';

const ROLE_MAP: Record<string, ChatMessage['role']> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  model: 'assistant',
  ai: 'assistant',
  tool: 'tool',
  function: 'tool',
};
function roleOf(raw: unknown): { role: ChatMessage['role']; prefix: string } {
  const r = typeof raw === 'string' ? raw.toLowerCase() : '';
  const role = ROLE_MAP[r];
  return role ? { role, prefix: '' } : { role: 'user', prefix: `(${String(raw).slice(0, 40)}) ` };
}

/** The GenAI conventions' message shape: `{role, parts: [{type: "text", content}], …}`. */
const GenAiMessages = z
  .array(
    z
      .object({
        role: z.unknown().optional(),
        parts: z.array(z.record(z.string(), z.unknown())).max(1_000).optional(),
        content: z.unknown().optional(),
      })
      .loose(),
  )
  .max(10_000);

function partsText(m: z.infer<typeof GenAiMessages>[number]): string {
  if (m.parts) {
    return m.parts
      .map((p) => (p.type === 'text' && typeof p.content === 'string' ? p.content : JSON.stringify(p)))
      .join('\n');
  }
  return typeof m.content === 'string' ? m.content : m.content === undefined ? '' : JSON.stringify(m.content);
}

/** Flattened `{prefix}{i}.{role|content}` lists (OpenInference adds `.message`). */
function flattened(attrs: Attrs, prefix: string, inner: string): { role: unknown; content: string }[] {
  const out: { role: unknown; content: string }[] = [];
  for (let i = 0; i < 10_000; i++) {
    const role = attrs.has(`${prefix}${i}${inner}role`) ? attrs.str(`${prefix}${i}${inner}role`) : undefined;
    const content = attrs.has(`${prefix}${i}${inner}content`)
      ? attrs.str(`${prefix}${i}${inner}content`)
      : undefined;
    if (role === undefined && content === undefined) break;
    out.push({ role: role ?? 'user', content: content ?? '' });
  }
  return out;
}

export function inputMessages(a: Attrs): ChatMessage[] {
  const toChat = (list: { role: unknown; content: string }[]): ChatMessage[] =>
    list.map((m) => {
      const { role, prefix } = roleOf(m.role);
      return { role, content: prefix + m.content };
    });
  let result: ChatMessage[] | undefined;
  const genai = a.json(GENAI.inputMessages, GenAiMessages);
  if (genai) result = toChat(genai.map((m) => ({ role: m.role, content: partsText(m) })));
  const oi = flattened(a, OI.inputMessagesPrefix, '.message.');
  if (!result && oi.length > 0) result = toChat(oi);
  const ollm = flattened(a, OPENLLMETRY.promptPrefix, '.');
  if (!result && ollm.length > 0) result = toChat(ollm);
  const systemInstructions = a.has('gen_ai.system_instructions')
    ? a.str('gen_ai.system_instructions')
    : undefined;
  if (!result && a.has(OI.inputValue)) {
    const v = a.str(OI.inputValue) ?? '';
    // Baton's own exports write `{"messages": [...]}` here too.
    let msgs: ChatMessage[] | undefined;
    try {
      const parsed = z
        .object({ messages: z.array(z.object({ role: z.unknown(), content: z.string() })).max(10_000) })
        .safeParse(JSON.parse(v));
      if (parsed.success) msgs = toChat(parsed.data.messages);
    } catch {
      msgs = undefined;
    }
    result = msgs ?? [{ role: 'user', content: v }];
  }
  // Duplicates of what was read above.
  a.consume(OI.inputValue);
  a.consume(OI.inputMime);
  a.consumePrefix(OI.inputMessagesPrefix);
  a.consumePrefix(OPENLLMETRY.promptPrefix);
  const out = result ?? [];
  if (systemInstructions !== undefined) {
    let text = systemInstructions;
    try {
      const parts = z.array(z.record(z.string(), z.unknown())).safeParse(JSON.parse(systemInstructions));
      if (parts.success)
        text = parts.data
          .map((p) => (typeof p.content === 'string' ? p.content : JSON.stringify(p)))
          .join('\n');
    } catch {
      text = systemInstructions;
    }
    out.unshift({ role: 'system', content: text });
  }
  return out.slice(0, 500);
}

export function outputText(a: Attrs): string {
  let result: string | undefined;
  const genai = a.json(GENAI.outputMessages, GenAiMessages);
  if (genai) result = genai.map(partsText).join('\n');
  const oi = flattened(a, OI.outputMessagesPrefix, '.message.');
  if (result === undefined && oi.length > 0) result = oi.map((m) => m.content).join('\n');
  const ollm = flattened(a, OPENLLMETRY.completionPrefix, '.');
  if (result === undefined && ollm.length > 0) result = ollm.map((m) => m.content).join('\n');
  if (result === undefined && a.has(OI.outputValue)) result = a.str(OI.outputValue);
  a.consume(OI.outputValue);
  a.consume(OI.outputMime);
  a.consumePrefix(OI.outputMessagesPrefix);
  a.consumePrefix(OPENLLMETRY.completionPrefix);
  return result ?? '';
}

export function firstNum(a: Attrs, keys: readonly string[]): number | undefined {
  let found: number | undefined;
  for (const k of keys) {
    const v = a.num(k);
    if (found === undefined && v !== undefined && v >= 0) found = v;
  }
  return found;
}

export function firstStr(a: Attrs, keys: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const k of keys) {
    const v = a.has(k) ? a.str(k) : undefined;
    if (found === undefined && v !== undefined && v !== '') found = v;
  }
  return found;
}
