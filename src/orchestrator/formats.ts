/**
 * Prompt formats: how a model is asked for a design and how its output is read back. `chat` models
 * (the hub presets, anything typed in) get Baton's orchestrator chat messages through their chat
 * template and write MAS-Orchestra XML, read by `parseDesign`. The project's tiny model has its own
 * format (markers as token ids, a compact design expanded from the role pool); its adapter is
 * supplied by the module that defines that format.
 */
import type { ChatMessage } from '../core/trace.ts';
import { formatReport, parseDesign } from '../design/parse.ts';
import type { DesignRead, DomChoice } from './designer.ts';
import type { Prompt } from './generate.ts';
import type { LoadedLm } from './load.ts';

export interface PromptFormatAdapter {
  prompt(query: string, dom: DomChoice, lm: LoadedLm): Prompt;
  read(rawOutput: string, dom: DomChoice): DesignRead;
}

/** `auto` asks for the DAG prompt (a single agent is still a valid DAG) and reads the DoM from the design. */
export function chatFormat(
  messages: (query: string, dom: 'low' | 'high') => ChatMessage[],
): PromptFormatAdapter {
  return {
    prompt: (query, dom) => ({ kind: 'chat', messages: messages(query, dom === 'low' ? 'low' : 'high') }),
    read(rawOutput, dom) {
      const report = parseDesign(rawOutput, dom === 'auto' ? undefined : dom);
      return { design: report.design, errors: formatReport(report) };
    },
  };
}
