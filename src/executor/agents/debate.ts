/**
 * Debate: at least two roles; in round 1 each answers alone, in later rounds each sees the other
 * roles' answers from the round before; roles of one round run in parallel; a final decision
 * call judges the last answers.
 */
import type { AgentRunner } from '../types.ts';
import { AGENT_DEFAULTS } from './defaults.ts';
import { debateDecision, debateOpening, debateRound } from './prompts.ts';

export const debateAgent: AgentRunner = async (ctx) => {
  const given = (ctx.agent.params.debateRoles ?? []).map((r) => r.trim()).filter((r) => r !== '');
  const roles = [...new Set(given)];
  if (roles.length < given.length)
    ctx.note('roles', `Repeated debate roles run once each: ${roles.join(', ')}.`);
  if (roles.length < 2) {
    ctx.note(
      'roles',
      `A debate needs at least two roles; got ${roles.length}. Using ${AGENT_DEFAULTS.debateRoles.join(' and ')}.`,
    );
    roles.splice(0, roles.length, ...AGENT_DEFAULTS.debateRoles);
  }
  const maxRounds = ctx.agent.params.maxRounds ?? AGENT_DEFAULTS.debateMaxRounds;
  let answers = await Promise.all(
    roles.map((role) => ctx.chat(`debate round 1 · ${role}`, debateOpening(ctx.input, role))),
  );
  for (let round = 2; round <= maxRounds; round++) {
    const last = answers;
    answers = await Promise.all(
      roles.map((role, i) =>
        ctx.chat(
          `debate round ${round} · ${role}`,
          debateRound(
            ctx.input,
            role,
            last[i] ?? '',
            roles.flatMap((r, j) => (j === i ? [] : [{ role: r, answer: last[j] ?? '' }])),
          ),
          { kind: 'debate' },
        ),
      ),
    );
  }
  return ctx.chat(
    'final decision',
    debateDecision(
      ctx.input,
      roles.map((role, i) => ({ role, answer: answers[i] ?? '' })),
    ),
    { kind: 'decide', temperature: 0 },
  );
};
