/**
 * The construction policy compiled for the Build page: `loadPolicy` resolves a spec to its
 * checkpoint (policy-checkpoints.ts), chooses the compute backend once per preference, and compiles
 * the network; the `PolicyRuntime` it returns is the episode's `StepPolicy` (src/policy/episode.ts)
 * with timing and serialised calls.
 *
 * Inference runs on the main thread as an async service rather than in a worker: a step of the
 * CPU backend (two-pass) takes ≈0.8 ms median in Node (docs/benchmarks.md, "Policy") and the Build
 * page measures every step it takes (`ms` on each outcome, shown in the page), so a step stays far
 * below a 16 ms frame; WebGPU steps are asynchronous anyway. Calls into one network are serialised,
 * because the network reuses its input buffers between the node pass and the edge pass.
 */
import { fail, ok, type Result } from '../../core/result.ts';
import type { BackendChoice, BackendPreference } from '../../gpu/index.ts';
import type {
  ConstructionState,
  StepChoice,
  StepPolicy,
  StepPreview,
  StepSettings,
  TimedOutcome,
} from '../../policy/index.ts';
import {
  encodeTask,
  type TaskEncoding,
  PolicyNetwork,
  DEFAULT_POOL,
  type RolePool,
  stepPolicyOf,
} from '../../policy/index.ts';
import {
  checkpointFor,
  policyProblem,
  type CheckpointStorage,
  type PolicySpec,
} from './policy-checkpoints.ts';
import { errorText } from './problems.ts';

export interface PolicyRuntime extends StepPolicy {
  /** Checkpoint name as recorded in traces. */
  readonly name: string;
  readonly backend: 'cpu' | 'wasm' | 'webgpu';
  /** Why this backend was chosen. */
  readonly reason: string;
  readonly pool: RolePool;
  readonly maxAgents: number;
  readonly maxSteps: number;
  encode(query: string): TaskEncoding;
  step(
    task: TaskEncoding,
    state: ConstructionState,
    o: StepSettings,
    choice: StepChoice,
  ): Promise<TimedOutcome>;
  dispose(): void;
}

const now = (): number => globalThis.performance?.now() ?? Date.now();

/**
 * The backend is chosen once per page and preference: an adapter request is slow and its answer
 * does not change. A failed choice (WebGPU forced without an adapter) is not kept, so it is asked
 * again next time.
 */
const backendChoices = new Map<BackendPreference, Promise<BackendChoice>>();

async function chooseOnce(prefer: BackendPreference): Promise<BackendChoice> {
  if (prefer === 'cpu') return { backend: 'cpu', reason: 'CPU backend forced', adapter: null, ctx: null };
  let choice = backendChoices.get(prefer);
  if (!choice) {
    choice = import('../../gpu/index.ts').then((m) => m.chooseBackend(prefer));
    backendChoices.set(prefer, choice);
    choice.catch(() => backendChoices.delete(prefer));
  }
  return choice;
}

export interface LoadOptions {
  storage: CheckpointStorage;
  /** `auto` picks WebGPU only on a hardware adapter (src/gpu/select.ts). */
  prefer?: BackendPreference;
  /** The role pool the policy chooses from (default: the built-in pool). */
  pool?: RolePool;
}

/** Compiles the policy on the chosen backend. Never throws. */
export async function loadPolicy(spec: PolicySpec, o: LoadOptions): Promise<Result<PolicyRuntime>> {
  const pool = o.pool ?? DEFAULT_POOL;
  const cp = await checkpointFor(spec, o.storage, pool);
  if (!cp.ok) return cp;
  try {
    const choice = await chooseOnce(o.prefer ?? 'auto');
    const net = await PolicyNetwork.create(cp.value, choice);
    return ok(runtimeOf(net, choice.reason, pool));
  } catch (e) {
    return fail(policyProblem('E_POLICY_LOAD', errorText(e)));
  }
}

function runtimeOf(net: PolicyNetwork, reason: string, pool: RolePool): PolicyRuntime {
  const cfg = net.checkpoint.config;
  const policy = stepPolicyOf(net);
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job, job);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    name: net.name,
    backend: net.backend,
    reason,
    pool,
    maxAgents: cfg.maxAgents,
    maxSteps: cfg.maxSteps,
    encode: (query) => encodeTask(query, cfg.hashDim),
    preview: (task, state, o): Promise<StepPreview> => serial(() => policy.preview(task, state, o)),
    step: (task, state, o, choice) =>
      serial(async () => {
        const t0 = now();
        const out = await policy.step(task, state, o, choice);
        return { ...out, ms: now() - t0 };
      }),
    dispose: () => net.dispose(),
  };
}
