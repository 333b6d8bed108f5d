import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../core/errors.ts';
import { randomCheckpoint, DEFAULT_POOL } from '../../policy/index.ts';
import {
  checkpointFor,
  checkpointFromText,
  memoryCheckpoints,
  policyProblem,
  serializeCheckpointFor,
} from './policy-checkpoints.ts';

describe('policy checkpoints', () => {
  it('accepts a checkpoint for the default pool and refuses other pools and broken files', () => {
    expect(checkpointFromText(JSON.stringify(randomCheckpoint(DEFAULT_POOL, 1))).ok).toBe(true);
    const other = randomCheckpoint({ version: 'x', roles: [DEFAULT_POOL.roles[0]!] }, 1);
    const r = checkpointFromText(JSON.stringify(other));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.message).toMatch(/made for roles/);
    const broken = checkpointFromText('{"format":"baton.policy/1"}');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.errors.every((e) => e.code === 'E_POLICY_FILE')).toBe(true);
  });
  it('keeps checkpoints in storage and parses them again when read', async () => {
    const store = memoryCheckpoints();
    const cp = { ...randomCheckpoint(DEFAULT_POOL, 2), name: 'mine' };
    expect((await store.save(cp)).ok).toBe(true);
    const list = await store.list();
    expect(list.ok && list.value).toEqual(['mine']);
    const back = await store.load('mine');
    expect(back.ok && back.value.params['node.b2']).toEqual(cp.params['node.b2']);
    await store.remove('mine');
    expect((await store.load('mine')).ok).toBe(false);
  });

  it('resolves specs for a pool: prior and random for any pool, stored ones only for their own', async () => {
    const store = memoryCheckpoints();
    await store.save({ ...randomCheckpoint(DEFAULT_POOL, 4), name: 'kept' });
    const small = { version: 'x', roles: [DEFAULT_POOL.roles[0]!, DEFAULT_POOL.roles[2]!] };
    const prior = await checkpointFor({ kind: 'prior' }, store, small);
    expect(prior.ok && prior.value.config.roles).toEqual(['Decomposer', 'Solver']);
    const random = await checkpointFor({ kind: 'random', seed: 4 }, store, small);
    expect(random.ok && random.value.name).toBe('random:4');
    const kept = await checkpointFor({ kind: 'checkpoint', name: 'kept' }, store);
    expect(kept.ok && kept.value.name).toBe('kept');
    const refused = await checkpointFor({ kind: 'checkpoint', name: 'kept' }, store, small);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.errors[0]).toMatchObject({ code: 'E_POLICY_LOAD' });
    const file = await serializeCheckpointFor({ kind: 'checkpoint', name: 'kept' }, store);
    expect(file.ok && checkpointFromText(file.value.text).ok).toBe(true);
  });

  it('words problems with the sentences of the one error table', () => {
    expect(policyProblem('E_POLICY_STEP', 'no action is allowed')).toEqual({
      code: 'E_POLICY_STEP',
      message: `${ERRORS.E_POLICY_STEP}: no action is allowed`,
    });
    expect(policyProblem('E_PROVIDER').message).toBe('The provider cannot be used.');
  });
});
