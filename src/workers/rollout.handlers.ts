import { simulatedRunners } from '../executor/train-runners.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import { BatchedPolicy, type PolicyCheckpoint, type RolePool } from '../policy/index.ts';
import { rolloutMany } from '../train/index.ts';
import type { Handlers } from './rpc/server.ts';
import type { RolloutMethods, RolloutSetup } from './rollout.methods.ts';
import { encodeRollouts } from './rollout-wire.ts';

/**
 * What a rollout worker does (src/workers/rollout.worker.ts in a page, rollout.node-worker.ts in
 * Node): it keeps a batched sampler on its own CPU-side backend, loads each call's parameters into
 * it and samples the call's block of constructions with the simulator's runners, as the trainer's
 * thread would (`rolloutMany`).
 */
export function rolloutHandlers(): Handlers<RolloutMethods> {
  const tasks = new Map<number, MasBenchTask>();
  let held: { policy: BatchedPolicy; pool: RolePool; setup: RolloutSetup } | null = null;
  return {
    async rollouts(req) {
      if (req.setup) {
        held?.policy.dispose();
        held = null;
        const s = req.setup;
        const policy = BatchedPolicy.create(
          s.checkpoint as PolicyCheckpoint,
          {
            backend: s.backend,
            reason: 'a rollout worker samples on the CPU side',
            adapter: null,
            ctx: null,
          },
          { maxBatch: s.maxBatch, jpss: s.jpss, edgeMode: s.edgeMode },
        );
        held = { policy, pool: s.pool as RolePool, setup: s };
      }
      if (!held) throw new Error('the first call to a rollout worker carries its setup');
      if (req.episodes.length > held.policy.maxBatch)
        throw new Error(
          `a block of ${req.episodes.length} constructions exceeds the setup's ${held.policy.maxBatch}`,
        );
      if (req.resetTasks) tasks.clear();
      for (const t of req.tasks) tasks.set(t.key, t.task as MasBenchTask);
      const episodes = req.episodes.map((e) => {
        const task = tasks.get(e.task);
        if (!task) throw new Error(`task ${e.task} was not sent`);
        return { task, seed: e.seed };
      });
      held.policy.load({ ...held.policy.checkpoint, name: req.name }, req.arena);
      const rs = await rolloutMany({
        policy: held.policy,
        pool: held.pool,
        episodes,
        runners: simulatedRunners,
        maxSteps: req.maxSteps,
        temperature: req.temperature,
        greedy: req.greedy,
        intermediate: req.intermediate,
        rewards: req.rewards,
      });
      return encodeRollouts(rs, held.pool);
    },
  };
}
