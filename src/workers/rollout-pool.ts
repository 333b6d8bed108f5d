import type { MasBenchTask } from '../masbench/index.ts';
import type { PooledRolloutRequest, Rollout, RolloutWorkers } from '../train/index.ts';
import { createRpcClient, type RpcClient } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import { rolloutMethods, type RolloutMethods, type RolloutRequest } from './rollout.methods.ts';
import { rolloutsFromWire } from './rollout-wire.ts';

/**
 * Rollout workers (src/train/rollout-workers.ts): a training iteration's B·G constructions dealt out
 * in contiguous blocks, the first to this thread (the trainer's own sampler and runners) and one to
 * each worker thread (`rollout.worker.ts` in a page, `rollout.node-worker.ts` in Node), which
 * samples its block whole: the policy's passes on its own CPU-side backend and the simulated
 * sub-agents beside them. One message each way per worker and iteration, against one per
 * construction step for the simulator pool (sim-pool.ts), whose workers wait on this thread's
 * passes.
 *
 * A worker's rollouts are those of this thread (rollout-workers.ts says why; tested in
 * rollout-pool.test.ts). That is also what makes failure cheap: when a worker crashes, answers
 * what does not parse or does not fit its block, or reports an error, its block is sampled here,
 * the worker is stopped, and `problems` says why; nothing is lost. Only the steps and outcomes
 * cross (rollout.methods.ts): the states before each step and the final design are replayed here.
 */

export interface RolloutPoolOptions {
  /** Worker threads beside this one (0: every block runs here). */
  workers: number;
  /** Starts one rollout worker (a page's `Worker`, a Node worker thread, a test's port). */
  spawn: () => WorkerEndpoint;
}

/** A worker's table of MasBench tasks is emptied once it holds this many. */
const TASK_TABLE_LIMIT = 4096;

interface Lane {
  index: number;
  client: RpcClient<RolloutMethods>;
  dead: boolean;
  /** What the worker's sampler was set up with (JSON), and its largest block. */
  setupKey: string | null;
  maxBatch: number;
  taskKeys: Map<MasBenchTask, number>;
  nextKey: number;
}

/** `n` items in `parts` contiguous blocks whose sizes differ by at most one, larger ones first. */
export function blockBounds(n: number, parts: number): [number, number][] {
  const p = Math.max(1, Math.min(parts, n));
  const out: [number, number][] = [];
  let at = 0;
  for (let i = 0; i < p; i++) {
    const size = Math.floor(n / p) + (i < n % p ? 1 : 0);
    out.push([at, at + size]);
    at += size;
  }
  return out;
}

export function createRolloutPool(o: RolloutPoolOptions): RolloutWorkers {
  if (!Number.isInteger(o.workers) || o.workers < 0 || o.workers > 63)
    throw new Error(`rollout workers: ${o.workers} (an integer from 0 to 63)`);
  const lanes: Lane[] = Array.from({ length: o.workers }, (_, i) => ({
    index: i + 1,
    client: createRpcClient(rolloutMethods, o.spawn, `rollout${i + 1}`, { checkInput: false }),
    dead: false,
    setupKey: null,
    maxBatch: 0,
    taskKeys: new Map(),
    nextKey: 0,
  }));
  const problems: string[] = [];
  let disposed = false;

  const stopLane = (lane: Lane, why: string): void => {
    if (lane.dead) return;
    lane.dead = true;
    const short = why.length > 300 ? `${why.slice(0, 300)}…` : why;
    if (!disposed)
      problems.push(`rollout worker ${lane.index} stopped (${short}); its blocks run in this thread`);
    lane.client.dispose();
  };

  /** The request of `lane` for `block`; the lane's tables as if the call succeeds. */
  const requestFor = (
    lane: Lane,
    r: PooledRolloutRequest,
    block: PooledRolloutRequest['episodes'],
    setupKey: string,
  ): RolloutRequest => {
    const fresh = lane.setupKey !== setupKey || block.length > lane.maxBatch;
    const maxBatch = Math.max(block.length, r.episodes.length);
    let resetTasks = false;
    if (lane.taskKeys.size > TASK_TABLE_LIMIT) {
      lane.taskKeys.clear();
      resetTasks = true;
    }
    const tasks: RolloutRequest['tasks'] = [];
    const episodes = block.map((e) => {
      let key = lane.taskKeys.get(e.task);
      if (key === undefined) {
        key = lane.nextKey++;
        lane.taskKeys.set(e.task, key);
        tasks.push({ key, task: e.task });
      }
      return { task: key, seed: e.seed };
    });
    if (fresh) {
      lane.setupKey = setupKey;
      lane.maxBatch = maxBatch;
    }
    return {
      ...(fresh
        ? {
            setup: {
              checkpoint: r.checkpoint,
              pool: r.pool,
              backend: r.backend,
              maxBatch,
              jpss: r.jpss,
              edgeMode: r.edgeMode,
            },
          }
        : {}),
      name: r.checkpoint.name,
      arena: r.arena,
      resetTasks,
      tasks,
      episodes,
      maxSteps: r.maxSteps,
      temperature: r.temperature,
      greedy: r.greedy,
      intermediate: r.intermediate,
      rewards: r.rewards,
    } as RolloutRequest;
  };

  return {
    get threads() {
      return 1 + lanes.filter((l) => !l.dead).length;
    },
    get problems() {
      return problems;
    },
    async sample(r) {
      const alive = disposed ? [] : lanes.filter((l) => !l.dead);
      const bounds = blockBounds(r.episodes.length, alive.length + 1);
      const blocks = bounds.map(([a, b]) => r.episodes.slice(a, b));
      const setupKey = JSON.stringify([
        r.checkpoint.config,
        r.checkpoint.roleVersion,
        r.pool,
        r.backend,
        r.jpss,
        r.edgeMode,
      ]);
      // The workers' calls go out first, so that they sample while this thread samples its block.
      const theirs = blocks.slice(1).map(async (block, i): Promise<Rollout[] | null> => {
        const lane = alive[i] as Lane;
        const req = requestFor(lane, r, block, setupKey);
        const res = await lane.client.call('rollouts', req);
        const got = res.ok ? rolloutsFromWire(res.value, block, r) : (res.errors[0]?.message ?? 'no answer');
        if (typeof got === 'string') {
          stopLane(lane, got);
          return null;
        }
        return got;
      });
      const mine = await r.here(blocks[0] ?? []);
      const out: Rollout[] = [...mine];
      const answers = await Promise.all(theirs);
      for (let i = 0; i < answers.length; i++)
        out.push(...(answers[i] ?? (await r.here(blocks[i + 1] as PooledRolloutRequest['episodes']))));
      return out;
    },
    dispose() {
      disposed = true;
      for (const lane of lanes) {
        lane.dead = true;
        lane.client.dispose();
      }
    },
  };
}
