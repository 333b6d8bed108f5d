/**
 * The simulator's per-call generator: the same numbers as `createRng` (core/rng.ts, mulberry32)
 * from the same seed, as a class. The simulator makes one per call and uses only `next` and
 * `int`; a class makes no closures per generator (tested equal to `createRng`, draw for draw).
 */
export class CallRng {
  private a: number;

  constructor(seed: number) {
    this.a = seed >>> 0;
  }

  /** Uniform float in [0, 1), as `createRng(seed).next()`. */
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n), as `createRng(seed).int(n)`. */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`rng.int needs a positive integer, got ${n}`);
    return Math.floor(this.next() * n);
  }
}

/** What the simulator draws from a call's generator. */
export type SimRng = Pick<CallRng, 'next' | 'int'>;

/** FNV-1a offset basis: `hashString` starts here (core/rng.ts). */
const FNV_OFFSET = 0x811c9dc5;

/** `hashString`'s state after `h`, continued over the characters of `s` (not yet made unsigned). */
export function fnvContinue(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/**
 * The seed of a call's generator, `hashString(`${seed}|${taskId}|${agentId}|${callIndex}|${label}`)`,
 * without building the string: `prefix` is the state after `${seed}|${taskId}|`
 * (`callSeedPrefix`), the same for every call of a backend.
 */
export function callSeed(prefix: number, agentId: string, callIndex: number, label: string): number {
  let h = fnvContinue(prefix, agentId);
  h = fnvContinue(h, '|');
  h = fnvContinue(h, String(callIndex));
  h = fnvContinue(h, '|');
  return fnvContinue(h, label) >>> 0;
}

export const callSeedPrefix = (seed: number, taskId: string): number =>
  fnvContinue(FNV_OFFSET, `${seed}|${taskId}|`);
