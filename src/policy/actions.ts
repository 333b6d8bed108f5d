/**
 * The MasHost action space: one ADD per role of the pool, then DELETE and EXIT. The node head has
 * one output per action in this order, so an action's index is its logit's column.
 */
import type { RolePool } from './roles.ts';

export const DELETE = 'DELETE';
export const EXIT = 'EXIT';

/** An action as the policy and the UI choose it: ADD names a role by its index in the pool. */
export type PolicyAction =
  { kind: 'add'; role: number; links: readonly string[] } | { kind: 'delete' } | { kind: 'exit' };

/** Number of actions: |roles| + 2. */
export const actionCount = (pool: RolePool): number => pool.roles.length + 2;
export const deleteIndex = (pool: RolePool): number => pool.roles.length;
export const exitIndex = (pool: RolePool): number => pool.roles.length + 1;

/** Display names in head order: role names, then `DELETE`, `EXIT` (as recorded in traces). */
export function actionNames(pool: RolePool): string[] {
  return [...pool.roles.map((r) => r.name), DELETE, EXIT];
}

/** The node-head column of an action. */
export function actionIndex(pool: RolePool, action: Pick<PolicyAction, 'kind'> & { role?: number }): number {
  if (action.kind === 'delete') return deleteIndex(pool);
  if (action.kind === 'exit') return exitIndex(pool);
  const r = action.role ?? -1;
  if (!Number.isInteger(r) || r < 0 || r >= pool.roles.length) throw new Error(`no role with index ${r}`);
  return r;
}

/** Index → kind (and role); the inverse of `actionIndex` up to links. */
export function actionKind(
  pool: RolePool,
  index: number,
): { kind: 'add'; role: number } | { kind: 'delete' } | { kind: 'exit' } {
  if (index === deleteIndex(pool)) return { kind: 'delete' };
  if (index === exitIndex(pool)) return { kind: 'exit' };
  if (!Number.isInteger(index) || index < 0 || index >= pool.roles.length)
    throw new Error(`no action with index ${index}`);
  return { kind: 'add', role: index };
}
