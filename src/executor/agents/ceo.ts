/**
 * MAS-TTS discussion led by a CEO. Each turn: a CEO call decides (JSON: continue or stop, how many
 * experts to recruit, the direction, each expert's token budget); a recruiter names the experts;
 * the first expert solves and the others review. The discussion ends when every reviewer accepts,
 * the CEO says stop, or the turn limit is reached; an evaluator then states the final answer.
 */
import { z } from 'zod';
import type { AgentRunner } from '../types.ts';
import { AGENT_DEFAULTS, numberParam } from './defaults.ts';
import {
  ceoMessages,
  evaluatorMessages,
  expertCriticMessages,
  expertSolveMessages,
  recruiterMessages,
} from './prompts.ts';
import { readVerdict } from './reflexion.ts';

export const CeoDecisionSchema = z.object({
  decision: z.enum(['continue', 'stop']),
  recruit: z.number().int().min(1).max(4),
  direction: z.string().max(2_000),
  /** Completion tokens each expert may use this turn. */
  token_budget: z.number().int().min(1).max(1_000_000),
});
export type CeoDecision = z.infer<typeof CeoDecisionSchema>;

/** The CEO's reply, read as JSON (the outermost `{…}`, so code fences and prose around it are fine). */
export function parseCeoDecision(
  reply: string,
): { ok: true; value: CeoDecision } | { ok: false; problem: string } {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start === -1 || end < start) return { ok: false, problem: 'no JSON object in the reply' };
  let json: unknown;
  try {
    json = JSON.parse(reply.slice(start, end + 1));
  } catch (e) {
    return { ok: false, problem: `not valid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const parsed = CeoDecisionSchema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      problem: parsed.error.issues.map((i) => `${i.path.join('.') || 'reply'}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, value: parsed.data };
}

/** Expert names from the recruiter's "Name: strength" lines, padded to `count` with generic names. */
export function parseExperts(reply: string, count: number): string[] {
  const names: string[] = [];
  for (const line of reply.split('\n')) {
    const m = /^\s*(?:[-*•]|\d+[.)])?\s*\**([^:*\n]{2,60}?)\**\s*:/.exec(line);
    const name = m?.[1]?.trim();
    if (name && !names.includes(name)) names.push(name);
  }
  const out = names.slice(0, count);
  for (let i = out.length; i < count; i++) out.push(`Expert ${i + 1}`);
  return out;
}

export const ceoAgent: AgentRunner = async (ctx) => {
  const params = ctx.agent.params;
  const maxTurns = params.maxRounds ?? AGENT_DEFAULTS.ceoMaxTurns;
  const fallbackRecruit = Math.min(
    4,
    Math.max(1, numberParam(params, 'recruit') ?? AGENT_DEFAULTS.ceoRecruit),
  );
  const fallbackBudget = numberParam(params, 'tokenBudget') ?? AGENT_DEFAULTS.ceoTokenBudget;
  const history: string[] = [];
  let solution: string | null = null;
  let reviews: string[] = [];
  let experts: string[] = [];

  for (let turn = 1; turn <= maxTurns; turn++) {
    const reply = await ctx.chat(`CEO turn ${turn}`, ceoMessages(ctx.input, turn, history), {
      kind: 'ceo',
      temperature: 0,
    });
    const parsed = parseCeoDecision(reply);
    let decision: CeoDecision;
    if (parsed.ok) {
      decision = parsed.value;
    } else {
      // Safe default: keep going while there is no solution yet, stop once there is one.
      decision = {
        decision: solution === null ? 'continue' : 'stop',
        recruit: fallbackRecruit,
        direction: 'Solve the task step by step and check every value.',
        token_budget: fallbackBudget,
      };
      ctx.note(
        'ceo-parse-error',
        `Turn ${turn}: the CEO's reply could not be read (${parsed.problem}); using the default decision "${decision.decision}".`,
      );
    }
    // The agent's own maxTokens, when set, caps whatever budget the CEO hands out.
    const budget = Math.min(decision.token_budget, params.maxTokens ?? Infinity);
    ctx.note(
      'ceo-decision',
      `Turn ${turn}: ${decision.decision}; recruit ${decision.recruit}; ${budget} tokens per expert; direction: ${decision.direction}`,
    );
    if (decision.decision === 'stop') {
      if (solution !== null) break;
      ctx.note('ceo-decision', `Turn ${turn}: there is no solution yet, so the team works one turn first.`);
    }

    if (experts.length !== decision.recruit) {
      const recruited = await ctx.chat(
        `recruit turn ${turn}`,
        recruiterMessages(ctx.input, decision.recruit, decision.direction),
        { kind: 'recruit' },
      );
      experts = parseExperts(recruited, decision.recruit);
      ctx.note('recruit', `Turn ${turn}: ${experts.join(', ')}.`);
    }
    const solver = experts[0] ?? 'Expert 1';
    // With one expert there is still a reviewer: the discussion needs someone to agree with.
    const critics = experts.length > 1 ? experts.slice(1) : ['Reviewer'];
    const current = await ctx.chat(
      `solver turn ${turn} · ${solver}`,
      expertSolveMessages(ctx.input, solver, decision.direction, reviews),
      { maxTokens: budget },
    );
    solution = current;
    reviews = await Promise.all(
      critics.map((c) =>
        ctx.chat(`critic turn ${turn} · ${c}`, expertCriticMessages(ctx.input, c, current), {
          kind: 'critic',
          maxTokens: budget,
          temperature: 0,
        }),
      ),
    );
    const accepted = reviews.filter((r) => readVerdict(r) === 'accept').length;
    ctx.note('reviews', `Turn ${turn}: ${accepted}/${critics.length} reviewer(s) accepted the solution.`);
    history.push(
      `Turn ${turn}: ${solver} proposed:\n${current}\n\nReviews:\n${reviews
        .map((r, i) => `${critics[i] ?? 'Reviewer'}: ${r}`)
        .join('\n')}`,
    );
    if (accepted === critics.length) {
      ctx.note('agreement', `Turn ${turn}: every reviewer accepted; the discussion ends.`);
      break;
    }
  }

  return ctx.chat('evaluator', evaluatorMessages(ctx.input, solution ?? '(no solution)', reviews), {
    kind: 'decide',
    temperature: 0,
  });
};
