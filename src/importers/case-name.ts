import type { TaskSource } from '../core/trace.ts';

/**
 * What a MAS-Orchestra case-page name says about its run. Pages are named
 * `{orchestrator}_{sub-agent model}_{DoM}_{MASBench axis}{value}` (e.g.
 * `qwen2.5_20b_oss_120b_low_depth2`), or `{orchestrator}_{sub-agent size}_{dataset}` for the
 * benchmark pages (e.g. `harmony_grpo_7b_120b_aime24`). Every part is optional in the result:
 * a name that does not follow the pattern still imports, it just says less.
 */
export interface CaseName {
  /** The page name without folders and extensions. */
  name: string;
  orchestrator?: string;
  /** As written in the name, e.g. `oss_120b` or `120b`. */
  subAgent?: string;
  /** The model id the sub-agent part stands for, e.g. `gpt-oss-120b`. */
  subAgentModel?: string;
  dom?: 'low' | 'high' | 'high_extensive';
  source?: TaskSource;
  /** Anything after the task part, e.g. `100steps`. */
  suffix?: string;
}

const AXES = ['depth', 'horizon', 'breadth', 'parallel', 'robustness'] as const;
const AXIS_RE = new RegExp(`^(${AXES.join('|')})(\\d{1,2})$`);
const SIZE_RE = /^\d+(?:\.\d+)?[bBmM]$/;

/** Strips folders and the extensions MAS-Orchestra files carry (`.html`, `.sample.json`, `.json`). */
export function caseBaseName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/(\.sample)?\.(json|html?|txt)$/i, '').replace(/\.sample$/i, '');
}

function taskSource(token: string): TaskSource | undefined {
  const m = AXIS_RE.exec(token);
  if (m) {
    const value = Number(m[2]);
    if (value >= 1 && value <= 64) {
      return { kind: 'masbench', axis: m[1] as (typeof AXES)[number], value };
    }
  }
  if (/^[a-z][a-z0-9.-]{1,40}$/i.test(token) && !SIZE_RE.test(token)) return { kind: 'dataset', name: token };
  return undefined;
}

function modelFromPart(part: string): string {
  // `oss_120b` is OpenAI's gpt-oss-120b, the sub-agent model MAS-Orchestra's pages use.
  const oss = /^oss[_-](\d+b)$/i.exec(part);
  if (oss) return `gpt-oss-${(oss[1] as string).toLowerCase()}`;
  return part;
}

export function parseCaseName(fileName: string): CaseName {
  const name = caseBaseName(fileName);
  const out: CaseName = { name };
  const tokens = name.split('_').filter((t) => t !== '');
  const domAt = tokens.findIndex((t) => t === 'low' || t === 'high');
  let before: string[];
  let after: string[];
  if (domAt >= 0) {
    const extensive = tokens[domAt] === 'high' && tokens[domAt + 1] === 'extensive';
    out.dom = extensive ? 'high_extensive' : (tokens[domAt] as 'low' | 'high');
    before = tokens.slice(0, domAt);
    after = tokens.slice(domAt + (extensive ? 2 : 1));
  } else {
    // No DoM part: the task is the last token that names an axis or a dataset.
    const taskAt = tokens.findLastIndex((t) => taskSource(t) !== undefined);
    if (taskAt <= 0) return out;
    before = tokens.slice(0, taskAt);
    after = tokens.slice(taskAt);
  }
  const task = after[0];
  const source = task !== undefined ? taskSource(task) : undefined;
  if (source) out.source = source;
  if (after.length > 1) out.suffix = after.slice(1).join('_');

  // The sub-agent part is `oss_<size>` when present, else the last size token (`120b`).
  const ossAt = before.findIndex((t, i) => t.toLowerCase() === 'oss' && SIZE_RE.test(before[i + 1] ?? ''));
  let subStart = -1;
  if (ossAt > 0) subStart = ossAt;
  else if (before.length >= 2 && SIZE_RE.test(before[before.length - 1] as string))
    subStart = before.length - 1;
  if (subStart > 0) {
    out.subAgent = before.slice(subStart).join('_');
    out.subAgentModel = modelFromPart(out.subAgent);
    out.orchestrator = before.slice(0, subStart).join('_');
  } else if (domAt < 0) {
    // Without a DoM part or a model size the name is not a case-page name; claim nothing.
    return { name };
  } else if (before.length > 0) {
    out.orchestrator = before.join('_');
  }
  return out;
}
