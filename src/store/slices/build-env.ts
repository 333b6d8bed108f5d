/**
 * The effects the Build page's slices use (checkpoint and role-pool storage, the compute backend
 * override, the clock, the auto-play timer), in one place so tests swap them all through
 * `configureBuild`.
 */
import type { ComputeChoice } from '../construction.ts';
import { idbCheckpoints, type CheckpointStorage } from '../services/policy-checkpoints.ts';
import { idbRolePools, type RolePoolStorage } from '../services/roles.ts';

export interface BuildEnv {
  storage: CheckpointStorage;
  pools: RolePoolStorage;
  /** Overrides the form's `compute` choice when set (tests pin the CPU). */
  prefer: ComputeChoice | null;
  now: () => Date;
  /** Schedules the next auto-play step. */
  schedule: (fn: () => void, ms: number) => () => void;
}

let env: BuildEnv = {
  storage: idbCheckpoints(),
  pools: idbRolePools(),
  prefer: null,
  now: () => new Date(),
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** The effects in use. */
export const buildEnv = (): BuildEnv => env;

export function configureBuild(next: Partial<BuildEnv>): BuildEnv {
  const previous = env;
  env = { ...env, ...next };
  return previous;
}
