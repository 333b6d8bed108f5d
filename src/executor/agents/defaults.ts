/**
 * Defaults of the agent archive (MAS-Orchestra's, plus MAS-TTS for the CEO discussion). Each one
 * can be overridden per agent through its `params` (names in the comments).
 */
export const AGENT_DEFAULTS = {
  /** SCAgent `samples`: independent answers voted on. */
  scSamples: 5,
  /** SCAgent sampling temperature when `temperature` is not set: diversity is the point of SC. */
  scTemperature: 0.8,
  /** ReflexionAgent `maxRounds`: critic rounds after the first answer. */
  reflexionMaxRounds: 5,
  /** DebateAgent `maxRounds`: rounds of argument before the final decision. */
  debateMaxRounds: 2,
  /** DebateAgent `debateRoles` when the design gives fewer than two. */
  debateRoles: ['Proponent', 'Skeptic'] as readonly string[],
  /** CEOAgent `maxRounds`: discussion turns, each starting with a CEO decision. */
  ceoMaxTurns: 4,
  /** CEOAgent `recruit`: experts recruited when the CEO's reply cannot be read (1–4). */
  ceoRecruit: 2,
  /** CEOAgent `tokenBudget`: completion tokens per expert when the CEO's reply cannot be read. */
  ceoTokenBudget: 1024,
} as const;

/** A numeric param from the catch-all part of `params`, if it is a usable number. */
export function numberParam(params: Record<string, unknown>, name: string): number | undefined {
  const v = params[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
