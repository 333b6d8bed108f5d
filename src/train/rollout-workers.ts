/**
 * What the trainer asks of rollout workers (src/workers/rollout-pool.ts implements it; this layer
 * starts no thread): an iteration's B·G constructions sampled in blocks, one block in the trainer's
 * thread and the others in worker threads, each of which runs the policy's passes on its own
 * CPU-side backend and the simulated sub-agents beside them, with no message between the steps.
 *
 * The numbers do not depend on where a block runs: a construction's passes do not depend on the
 * other rows of their batch, and its simulated sub-agents are a function of its task, its seed and
 * its calls. So a worker must run the backend the trainer's sampler runs (`backend`), and the
 * trainer's runners must be the simulator's (`simulatedRunners` of src/executor), which is what a
 * worker runs.
 */
import type { MasBenchTask } from '../masbench/index.ts';
import type { ActionRewardConfig, EdgeMode, PolicyCheckpoint, RolePool } from '../policy/index.ts';
import type { Rollout } from './rollout.ts';

export interface PooledRolloutRequest {
  /** The policy the sampler compiled (config, roles, parameter shapes); the parameters are `arena`. */
  checkpoint: PolicyCheckpoint;
  /** The parameters to sample with: the learner's parameter arena. */
  arena: Float32Array;
  /** The trainer's sampler backend; a worker runs the same one. */
  backend: 'cpu' | 'wasm';
  jpss: boolean;
  edgeMode: EdgeMode;
  pool: RolePool;
  /** One entry per construction, in the trainer's order. */
  episodes: readonly { task: MasBenchTask; seed: number }[];
  maxSteps: number;
  temperature: number;
  greedy: boolean;
  intermediate: boolean;
  rewards: ActionRewardConfig;
  /** Samples some of `episodes` in the trainer's thread (its sampler and runners), in order. */
  here: (episodes: readonly { task: MasBenchTask; seed: number }[]) => Promise<Rollout[]>;
}

export interface RolloutWorkers {
  /** The rollouts of `r.episodes`, in order: those `here` would give for all of them. */
  sample(r: PooledRolloutRequest): Promise<Rollout[]>;
  /** This thread and the workers still in use. */
  readonly threads: number;
  /** Why workers were stopped, a sentence each; empty while all work. */
  readonly problems: readonly string[];
  /** Stops the workers; later iterations sample in this thread alone. */
  dispose(): void;
}
