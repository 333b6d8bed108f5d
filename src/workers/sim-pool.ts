import type { Agent, Design, Task, Trace } from '../core/trace.ts';
import { simulatedRunners, type SimulatedRunners } from '../executor/train-runners.ts';
import { taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import { createRpcClient, type RpcClient } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import { simMethods, type SimAnswer, type SimBatch, type SimJob, type SimMethods } from './sim.methods.ts';

/**
 * The trainer's simulated runners spread over threads. A training iteration runs every partial
 * design of its B·G constructions through the simulator, one construction step at a time for all
 * episodes together (src/policy `constructMany`): about half of sampling the rollouts on the CPU
 * backends, and the same work on every backend. The pool deals the tasks out round-robin to this
 * thread and `workers` worker threads (`sim.worker.ts` in a page, `sim.node-worker.ts` in Node), a
 * task's episodes together; each thread keeps its episodes' runners, so a runner's memory of its
 * earlier agents stays where its calls go. The calls a construction step makes in one turn of the
 * event loop become one message per worker (posted in a microtask), and then this thread runs its
 * own share while the workers run theirs.
 *
 * The numbers do not depend on where a call runs: the simulator is a function of the seed, the
 * task and the call (src/executor/train-runners.ts), so a worker's answers are those of this
 * thread (tested in sim-pool.test.ts). That is also what makes failure cheap: when a worker
 * crashes, answers what does not parse, or reports an error, its calls run here on fresh runners
 * of the same episodes, the worker is stopped, and `problems` says why; nothing is lost.
 */

export interface SimPoolOptions {
  /** Worker threads beside this one (0: every call runs here). */
  workers: number;
  /** Starts one simulator worker (a page's `Worker`, a Node worker thread, a test's port). */
  spawn: () => WorkerEndpoint;
}

export interface SimPool {
  /** The runners of one episode (`RunnersFor` of src/train). */
  runners: (task: MasBenchTask, seed: number) => SimulatedRunners;
  /** This thread and the workers still in use. */
  readonly threads: number;
  /** Why workers were stopped, a sentence each; empty while all work. */
  readonly problems: readonly string[];
  /** Stops the workers; calls after this run in this thread. */
  dispose(): void;
}

/**
 * Simulator workers beside this thread on a machine with `cores` logical cores: one per core beyond
 * two (one core stays with the page, one with this thread), at most 7. None on two cores or fewer,
 * where a worker only takes turns with this thread (docs/benchmarks.md, "Simulated sub-agents on
 * worker threads").
 */
export function defaultSimWorkers(cores: number): number {
  return Math.max(0, Math.min(7, Math.floor(cores) - 2));
}

/** Workers for a run's `threads` setting (`auto`, or the threads in all, this one included). */
export function simWorkersFor(threads: number | 'auto', cores: number): number {
  return threads === 'auto' ? defaultSimWorkers(cores) : Math.max(0, Math.min(7, Math.floor(threads) - 1));
}

/** A worker's table of MasBench tasks is emptied once it holds this many. */
const TASK_TABLE_LIMIT = 4096;

interface Lane {
  index: number;
  /** null: this thread. */
  client: RpcClient<SimMethods> | null;
  dead: boolean;
  queue: Pending[];
  taskKeys: Map<MasBenchTask, number>;
  nextKey: number;
  newTasks: SimBatch['tasks'];
  resetTasks: boolean;
  drop: number[];
}

export interface RunnerState {
  id: number;
  lane: Lane;
  mb: MasBenchTask;
  seed: number;
  /** taskOfMasbench(mb), and the last task object a call passed that equals it. */
  task: Task;
  seen: Task;
  started: boolean;
  sentAgents: readonly Agent[];
  /** The runners in this thread (lane 0, or after its worker failed). */
  local: SimulatedRunners | null;
}

interface Pending {
  runner: RunnerState;
  kind: 'intermediate' | 'final';
  design: Design;
  task: Task;
  job: SimJob | null;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

const sameTask = (a: Task, b: Task): boolean =>
  a === b ||
  (a.query === b.query &&
    a.groundTruth === b.groundTruth &&
    a.seed === b.seed &&
    JSON.stringify(a.groundTruths) === JSON.stringify(b.groundTruths) &&
    JSON.stringify(a.source) === JSON.stringify(b.source));

/** A call's design as the changes from what its worker holds (sim.methods.ts). */
export function jobOf(r: RunnerState, kind: Pending['kind'], design: Design, task: Task): SimJob {
  const lane = r.lane;
  let start: SimJob['start'];
  if (!r.started) {
    let key = lane.taskKeys.get(r.mb);
    if (key === undefined) {
      key = lane.nextKey++;
      lane.taskKeys.set(r.mb, key);
      lane.newTasks.push({ key, task: r.mb });
    }
    start = { task: key, seed: r.seed };
    r.started = true;
  }
  const at = new Map<Agent, number>();
  r.sentAgents.forEach((a, i) => at.set(a, i));
  const added: Agent[] = [];
  const agents = design.agents.map((a) => at.get(a) ?? r.sentAgents.length + added.push(a) - 1);
  r.sentAgents = design.agents;
  const edges: string[] = [];
  for (const e of design.edges) edges.push(e.from, e.to);
  const own = task === r.seen || sameTask(r.task, task);
  if (own) r.seen = task;
  return {
    runner: r.id,
    kind,
    ...(start ? { start } : {}),
    ...(own ? {} : { task }),
    dom: design.dom,
    ...(design.thinking !== undefined ? { thinking: design.thinking } : {}),
    ...(design.directAnswer !== undefined ? { directAnswer: design.directAnswer } : {}),
    agents,
    added,
    edges,
  };
}

export function createSimPool(o: SimPoolOptions): SimPool {
  const workers = Math.max(0, Math.floor(o.workers));
  const lanes: Lane[] = Array.from({ length: workers + 1 }, (_, index) => ({
    index,
    client: index === 0 ? null : createRpcClient(simMethods, o.spawn, `sim${index}`, { checkInput: false }),
    dead: false,
    queue: [],
    taskKeys: new Map(),
    nextKey: 0,
    newTasks: [],
    resetTasks: false,
    drop: [],
  }));
  const problems: string[] = [];
  let nextRunner = 0;
  // A task's episodes share one lane: the simulator reuses what it read from a task's texts across
  // its episodes (src/executor/sim/task.ts), within a thread.
  const laneOf = new WeakMap<MasBenchTask, Lane>();
  let nextLane = 0;
  let flushing = false;
  let disposed = false;
  // A runner dropped without its final call: its worker forgets it with the next batch.
  const collected = new FinalizationRegistry<{ lane: Lane; id: number }>(({ lane, id }) => {
    if (!lane.dead) lane.drop.push(id);
  });

  const runHere = (p: Pending): void => {
    const r = p.runner;
    r.local ??= simulatedRunners(r.mb, r.seed);
    const done =
      p.kind === 'final'
        ? r.local.final({ design: p.design, task: p.task } as Trace)
        : r.local.intermediate(p.design, p.task);
    done.then(p.resolve, p.reject);
  };

  const stopLane = (lane: Lane, why: string): void => {
    if (lane.dead) return;
    lane.dead = true;
    const short = why.length > 300 ? `${why.slice(0, 300)}…` : why;
    if (!disposed)
      problems.push(`simulator worker ${lane.index} stopped (${short}); its episodes run in this thread`);
    lane.client?.dispose();
  };

  const answer = (p: Pending, a: SimAnswer | undefined, lane: Lane): void => {
    if (a?.kind === 'intermediate' && p.kind === 'intermediate') {
      const { kind: _k, ...step } = a;
      p.resolve(step);
    } else if (a?.kind === 'final' && p.kind === 'final') {
      p.resolve({ correct: a.correct, tokens: a.tokens });
    } else {
      // The call runs here instead; a simulator error recurs here and rejects as it would have.
      stopLane(lane, a?.kind === 'error' ? a.message : 'an answer of the wrong kind');
      runHere(p);
    }
  };

  const send = (lane: Lane): void => {
    const batch = lane.queue;
    lane.queue = [];
    const client = lane.client as RpcClient<SimMethods>;
    const input: SimBatch = {
      resetTasks: lane.resetTasks,
      tasks: lane.newTasks,
      drop: lane.drop,
      jobs: batch.map((p) => p.job as SimJob),
    };
    lane.resetTasks = false;
    lane.newTasks = [];
    lane.drop = [];
    if (lane.taskKeys.size > TASK_TABLE_LIMIT) {
      lane.taskKeys.clear();
      lane.resetTasks = true;
    }
    void client.call('run', input).then((res) => {
      if (!res.ok || res.value.answers.length !== batch.length) {
        stopLane(
          lane,
          res.ok ? 'it answered the wrong number of calls' : (res.errors[0]?.message ?? 'no answer'),
        );
        for (const p of batch) runHere(p);
        return;
      }
      batch.forEach((p, i) => answer(p, res.value.answers[i], lane));
    });
  };

  const flush = (): void => {
    flushing = false;
    for (const lane of lanes) if (lane.client && lane.queue.length > 0) send(lane);
    const here = (lanes[0] as Lane).queue;
    (lanes[0] as Lane).queue = [];
    for (const p of here) runHere(p);
  };

  const call = (r: RunnerState, kind: Pending['kind'], design: Design, task: Task): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const onWorker = r.lane.client !== null && !r.lane.dead && !disposed;
      const p: Pending = {
        runner: r,
        kind,
        design,
        task,
        job: onWorker ? jobOf(r, kind, design, task) : null,
        resolve,
        reject,
      };
      (onWorker ? r.lane : (lanes[0] as Lane)).queue.push(p);
      if (!flushing) {
        flushing = true;
        queueMicrotask(flush);
      }
    });

  return {
    runners(task, seed) {
      const id = nextRunner++;
      let lane = laneOf.get(task);
      if (!lane) {
        lane = lanes[nextLane++ % lanes.length] as Lane;
        laneOf.set(task, lane);
      }
      const t = taskOfMasbench(task);
      const r: RunnerState = {
        id,
        lane,
        mb: task,
        seed,
        task: t,
        seen: t,
        started: false,
        sentAgents: [],
        local: null,
      };
      const runners: SimulatedRunners = {
        intermediate: (design, t2) =>
          call(r, 'intermediate', design, t2) as ReturnType<SimulatedRunners['intermediate']>,
        final: (trace) => {
          collected.unregister(r);
          return call(r, 'final', trace.design, trace.task) as ReturnType<SimulatedRunners['final']>;
        },
      };
      if (lane.client) collected.register(runners, { lane, id }, r);
      return runners;
    },
    get threads() {
      return 1 + lanes.filter((l) => l.client && !l.dead).length;
    },
    get problems() {
      return problems;
    },
    dispose() {
      disposed = true;
      for (const lane of lanes) lane.client?.dispose();
    },
  };
}
