/** JSON Lines for tasks: one task per line, written by the CLI and read back with validation. */
import { MasBenchTaskSchema, type MasBenchTask } from './schema.ts';

/** Longest line `fromJsonl` will parse; generated tasks are a few kilobytes. */
export const MAX_LINE_CHARS = 1_000_000;

/** One JSON object per line, each line ending in `\n`. */
export function toJsonl(tasks: readonly MasBenchTask[]): string {
  return tasks.map((t) => JSON.stringify(t) + '\n').join('');
}

export interface JsonlProblem {
  /** 1-based line number. */
  line: number;
  message: string;
}

/** Parses and validates every non-blank line; bad lines are reported, good ones kept. */
export function fromJsonl(text: string): { tasks: MasBenchTask[]; problems: JsonlProblem[] } {
  const tasks: MasBenchTask[] = [];
  const problems: JsonlProblem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    if (raw.length > MAX_LINE_CHARS) {
      problems.push({ line, message: `line is longer than ${MAX_LINE_CHARS} characters` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      problems.push({ line, message: `not JSON: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    const parsed = MasBenchTaskSchema.safeParse(value);
    if (parsed.success) tasks.push(parsed.data);
    else {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((iss) => `${iss.path.join('.') || '(task)'}: ${iss.message}`);
      problems.push({ line, message: issues.join('; ') });
    }
  });
  return { tasks, problems };
}
