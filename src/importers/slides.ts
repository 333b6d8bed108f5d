import { z } from 'zod';
import { describe } from '../core/errors.ts';
import { zodProblems } from '../core/parse-trace.ts';
import { fail, ok, type Problem, type Result } from '../core/result.ts';
import { minimalTrace, traceIdFrom, withTotals } from '../core/trace-builders.ts';
import {
  DIAGRAM_DATA_URL,
  MAX_DIAGRAM_CHARS,
  TraceSchema,
  type DesignRecovery,
  type Designer,
  type Trace,
  type TaskSource,
} from '../core/trace.ts';
import type { RawDesign } from '../design/raw.ts';
import { sinkOf } from '../design/validate.ts';
import { lenientCorrect } from '../answers/index.ts';
import { parseCaseName, type CaseName } from './case-name.ts';
import { finishDesign } from './design.ts';
import { parseMasCode } from './mas-code.ts';
import { recoverDesign } from './recover.ts';
import { splitThinking } from './thinking.ts';
import type { ImportItem } from './types.ts';

export const MAS_ORCHESTRA = 'MAS-Orchestra';

/**
 * One slide of a MAS-Orchestra case page. Pages are generated, but a file can be anything, so
 * every field is optional and loosely typed here; `slideToTrace` decides what is usable.
 */
const SlideSchema = z.looseObject({
  row: z.union([z.number(), z.string()]).optional(),
  step: z.union([z.string(), z.number()]).nullish(),
  question: z.string(),
  thinking: z.string().nullish(),
  mas_code: z.string().nullish(),
  image: z.string().nullish(),
  error: z.union([z.boolean(), z.string(), z.number()]).nullish(),
  error_msg: z.string().nullish(),
  execution_output: z.union([z.string(), z.number()]).nullish(),
  ground_truth: z.union([z.string(), z.number()]).nullish(),
});

/** True when a value has the fields that make it a case-page slide. */
export function looksLikeSlide(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return 'question' in o && ('mas_code' in o || 'execution_output' in o || ('row' in o && 'step' in o));
}

/** Tag of a trace whose design was recovered from the orchestrator's text (see recover.ts). */
export const RECOVERED_TAG = 'design-recovered';

/** The training step as an integer (`"130"` → 130), or undefined when it is not one. */
export function stepNumber(step: string | number | null | undefined): number | undefined {
  if (typeof step === 'number') return Number.isInteger(step) && step >= 0 ? step : undefined;
  if (typeof step !== 'string' || !/^\s*\d{1,9}\s*$/.test(step)) return undefined;
  return Number(step.trim());
}

export function slideLabel(
  row: string | number | undefined,
  step: string | number | null | undefined,
  index: number,
): string {
  const r = row ?? index;
  const s =
    step === undefined || step === null || String(step).trim() === '' ? '' : ` · step ${String(step).trim()}`;
  return `row ${String(r).slice(0, 40)}${s}`;
}

function taskSource(name: CaseName, row: string): TaskSource {
  const s = name.source;
  if (s?.kind === 'masbench') return { ...s, taskId: `row ${row}` };
  if (s?.kind === 'dataset') return { ...s, item: `row ${row}` };
  return {
    kind: 'imported',
    tool: MAS_ORCHESTRA,
    ref: `${name.name ? `${name.name} ` : ''}row ${row}`.slice(0, 200),
  };
}

/** `120b` on a benchmark page and `gpt-oss-120b` in its code name the same model. */
function sameModel(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || x.endsWith(`-${y}`) || y.endsWith(`-${x}`);
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

function text(v: string | number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return String(v);
}

export interface SlideContext {
  /** File or page name (`qwen2.5_20b_oss_120b_low_depth2.sample.json`), when known. */
  fileName?: string;
  index: number;
}

/** Converts one slide; never throws. Problems with the design are warnings, not failures. */
export function slideToItem(value: unknown, ctx: SlideContext): ImportItem {
  const fallbackLabel = `slide ${ctx.index + 1}`;
  const parsed = SlideSchema.safeParse(value);
  if (!parsed.success) {
    const rowHint =
      typeof value === 'object' && value !== null && 'row' in value
        ? ` (row ${String((value as { row: unknown }).row).slice(0, 20)})`
        : '';
    return {
      label: `${fallbackLabel}${rowHint}`,
      result: fail(
        ...zodProblems(parsed.error, 'E_IMPORT_ITEM', 5).map((p) => ({
          ...p,
          message: describe('E_IMPORT_ITEM', `not a MAS-Orchestra slide — ${p.message}`),
        })),
      ),
    };
  }
  const slide = parsed.data;
  const label = slideLabel(slide.row, slide.step, ctx.index);
  try {
    return { label, result: slideToTrace(slide, ctx) };
  } catch (e) {
    // Defensive: the steps above are written not to throw; a bug must not abort the whole import.
    return {
      label,
      result: fail({
        code: 'E_IMPORT_ITEM',
        message: describe('E_IMPORT_ITEM', `internal error: ${e instanceof Error ? e.message : String(e)}`),
      }),
    };
  }
}

function slideToTrace(slide: z.infer<typeof SlideSchema>, ctx: SlideContext): Result<Trace> {
  const warnings: Problem[] = [];
  const name = ctx.fileName !== undefined ? parseCaseName(ctx.fileName) : { name: '' };
  const row = String(slide.row ?? ctx.index);
  const step = stepNumber(slide.step);
  if (
    slide.step !== undefined &&
    slide.step !== null &&
    String(slide.step).trim() !== '' &&
    step === undefined
  ) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `Training step ${JSON.stringify(slide.step)} is not a whole number; it was left out.`,
    });
  }
  const finalAnswer = text(slide.execution_output);
  const groundTruth = text(slide.ground_truth);
  const code = parseMasCode(slide.mas_code ?? '');
  for (const p of code.problems) warnings.push({ code: 'E_DESIGN_PARSE', message: p });

  // The page name is what the page claims for every slide, so it wins over the model written in
  // the generated code when they disagree (and the user is told); when they agree, the code's
  // full model id is kept (`gpt-oss-120b` rather than `120b`).
  const disagree =
    name.subAgentModel !== undefined &&
    code.model !== undefined &&
    !sameModel(name.subAgentModel, code.model);
  const model = disagree ? name.subAgentModel : (code.model ?? name.subAgentModel);
  if (disagree) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `The page name says the sub-agents ran on ${name.subAgentModel}, but the code calls model '${code.model}'.`,
    });
  }
  let recovery: DesignRecovery | undefined;
  const designerOf = (): Designer => ({
    kind: 'imported',
    tool: MAS_ORCHESTRA,
    ...(name.orchestrator !== undefined ? { orchestrator: name.orchestrator } : {}),
    ...(model !== undefined ? { subAgentModel: model } : {}),
    ...(step !== undefined ? { trainingStep: step } : {}),
    ...(name.dom !== undefined ? { dom: name.dom } : {}),
    ...(recovery !== undefined ? { designRecovery: recovery } : {}),
    ...(disagree && name.subAgentModel !== undefined && code.model !== undefined
      ? { disagreements: [{ field: 'subAgentModel', page: name.subAgentModel, code: code.model }] }
      : {}),
  });

  const diagram = slide.image ?? '';
  const keepDiagram = diagram.length <= MAX_DIAGRAM_CHARS && DIAGRAM_DATA_URL.test(diagram);
  if (diagram !== '' && !keepDiagram) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message:
        'The diagram is not a base64 PNG, JPEG or WebP data URL (or is over 8,000,000 characters); it was left out.',
    });
  }
  const diagramDrawn = keepDiagram && slide.error !== true && slide.error !== 'true';

  const thinking = splitThinking(slide.thinking ?? '');
  const dom: 'low' | 'high' =
    name.dom !== undefined ? (name.dom === 'low' ? 'low' : 'high') : code.form === 'multi' ? 'high' : 'low';
  const tags = ['mas-orchestra', 'case-page'];
  let raw: RawDesign;
  let validate = true;
  if (code.form === 'direct' || code.form === 'unreadable') {
    raw = { dom, agents: [], edges: [] };
    validate = false;
    const diagramOnly = code.form === 'direct' && diagramDrawn;
    if (code.form === 'unreadable') tags.push('design-unreadable');
    if (diagramOnly) tags.push('design-in-diagram-only');
    if (code.form === 'unreadable' || diagramOnly) {
      // No design is recorded: the page drew one (or its code cannot be read), so this is not a
      // direct answer. The orchestrator's own text may still hold the agents it drafted.
      const missing = diagramOnly
        ? 'The page shows a design diagram but publishes no mas_code for it'
        : 'The design in mas_code could not be read';
      const recovered = recoverDesign(slide.thinking ?? '');
      if (recovered.ok) {
        recovery = recovered.recovery;
        raw = recovered.design;
        validate = true;
        tags.push(RECOVERED_TAG);
        warnings.push({
          code: 'E_IMPORT_ITEM',
          message: `${missing}; the design shown (${count(recovery.agents, 'agent')}, ${count(recovery.edges, 'edge')}) was recovered from the orchestrator's drafted agent blocks, not from code that ran.`,
        });
        for (const r of recovery.repairs) {
          warnings.push({ code: 'E_IMPORT_ITEM', message: `Design recovery: ${r}` });
        }
        if (name.dom === 'low' && raw.dom === 'high') {
          warnings.push({
            code: 'E_IMPORT_ITEM',
            message: `The page name says Degree of MAS low, but the recovered design has ${count(recovery.agents, 'agent')} and ${count(recovery.edges, 'edge')}; it is shown as high.`,
          });
        }
      } else {
        warnings.push({
          code: 'E_IMPORT_ITEM',
          message: `${missing}, and no design could be recovered from the orchestrator's text (${recovered.reason}); the design is not recorded.`,
        });
      }
    } else {
      tags.push('direct-answer');
      raw.directAnswer = finalAnswer ?? '';
    }
  } else {
    raw = { dom, agents: code.agents, edges: code.edges };
  }
  if (thinking !== undefined) raw.thinking = thinking;
  const finished = finishDesign(raw, { validate });
  warnings.push(...finished.warnings);
  tags.push(...finished.tags);

  const sink =
    code.form === 'multi' && code.sinks.length === 1
      ? code.sinks[0]
      : code.form === 'single'
        ? code.sinks[0]
        : undefined;
  const answerAgent =
    sink !== undefined ? (finished.renamed.get(sink) ?? sink) : (sinkOf(finished.design) ?? undefined);
  const hasAnswerAgent =
    answerAgent !== undefined && finished.design.agents.some((a) => a.id === answerAgent);

  const question = slide.question;
  const base = minimalTrace({
    id: traceIdFrom(name.name || ctx.fileName || '', row, question),
    query: question,
    groundTruth,
    source: taskSource(name, row),
    designer: designerOf(),
  });
  const trace: Trace = {
    ...base,
    title: `${base.title || 'Untitled'}`.slice(0, 200),
    // Case pages carry no dates; the epoch from minimalTrace is only a placeholder.
    createdAtKnown: false,
    designer: designerOf(),
    design: finished.design,
    execution: {
      backend: { kind: 'imported', tool: MAS_ORCHESTRA, ...(model !== undefined ? { model } : {}) },
      status: 'completed',
      events: [],
    },
    result: {
      finalAnswer,
      ...(hasAnswerAgent ? { answerAgent } : {}),
      correct: lenientCorrect(finalAnswer, groundTruth),
    },
    ...(keepDiagram ? { diagram } : {}),
    tags: [...new Set(tags)].slice(0, 32),
  };
  const checked = TraceSchema.safeParse(withTotals(trace));
  if (!checked.success) return fail(...zodProblems(checked.error, 'E_IMPORT_ITEM'));
  return ok(checked.data, warnings);
}

/** Tags of a slide that publishes no readable code, so no model of its own. */
const NO_CODE_TAGS = ['design-in-diagram-only', 'direct-answer', 'design-unreadable'];

/**
 * A slide without code takes its sub-agent model from the page name. When every slide of the file
 * that has code calls one and the same model, and it is not the page's, the page's claim is in
 * doubt for the others too: each slide without code records the disagreement (the code of the
 * other slides) and says so in a note, rather than stating the page's model as fact.
 */
export function crossCheckModels(items: readonly ImportItem[]): ImportItem[] {
  const traces = items.flatMap((i) => (i.result.ok ? [i.result.value] : []));
  const withCode = traces.filter((t) => !t.tags.some((tag) => NO_CODE_TAGS.includes(tag)));
  const claims = withCode.map((t) =>
    t.designer.kind === 'imported'
      ? t.designer.disagreements?.find((d) => d.field === 'subAgentModel' && d.codeOf === undefined)
      : undefined,
  );
  const first = claims[0];
  if (
    first === undefined ||
    claims.some((c) => c === undefined || c.code !== first.code || c.page !== first.page)
  ) {
    return [...items];
  }
  const n = withCode.length;
  return items.map((item) => {
    if (!item.result.ok) return item;
    const t = item.result.value;
    const d = t.designer;
    if (
      d.kind !== 'imported' ||
      !t.tags.some((tag) => NO_CODE_TAGS.includes(tag)) ||
      d.subAgentModel !== first.page ||
      (d.disagreements ?? []).some((x) => x.field === 'subAgentModel')
    ) {
      return item;
    }
    const disagreement = {
      field: 'subAgentModel',
      page: first.page,
      code: first.code,
      codeOf: 'other-items' as const,
    };
    const trace: Trace = {
      ...t,
      designer: { ...d, disagreements: [...(d.disagreements ?? []), disagreement] },
    };
    return {
      ...item,
      result: ok(trace, [
        ...item.result.warnings,
        {
          code: 'E_IMPORT_ITEM',
          message: `This slide publishes no code. The page name says the sub-agents ran on ${first.page}, but ${n === 1 ? 'the code of the one slide of this file that publishes code calls' : `the code of all ${n} slides of this file that publish code calls`} model '${first.code}'.`,
        },
      ]),
    };
  });
}
