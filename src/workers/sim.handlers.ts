import type { Agent, Design, Edge, Task } from '../core/trace.ts';
import { simulatedRunners, type SimulatedRunners } from '../executor/train-runners.ts';
import { taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import type { Handlers } from './rpc/server.ts';
import type { SimAnswer, SimJob, SimMethods } from './sim.methods.ts';

/**
 * What a simulator worker does (src/workers/sim.worker.ts in a page, sim.node-worker.ts in Node):
 * it holds the runners of the episodes the pool routed to it (`simulatedRunners`, the trainer's
 * fast path), rebuilds each call's design from the runner's last one and the call's changes
 * (sim.methods.ts), and runs a batch's calls as the trainer would in its own thread: all started
 * in order, then awaited together. A design is rebuilt before any call of the batch runs, so
 * batches are read in the order they arrive.
 */

interface Held {
  runners: SimulatedRunners;
  task: Task;
  agents: readonly Agent[];
}

/** Turns a job's changes into the design it stands for, given the runner's last agents. */
export function designOfJob(job: SimJob, last: readonly Agent[]): Design {
  const agents = job.agents.map((i) => {
    const a = i < last.length ? last[i] : (job.added[i - last.length] as Agent | undefined);
    if (!a) throw new Error(`agent ${i} is neither one of the last ${last.length} nor an added one`);
    return a;
  });
  if (job.edges.length % 2 !== 0) throw new Error('edges come as from, to pairs');
  const edges: Edge[] = [];
  for (let i = 0; i < job.edges.length; i += 2)
    edges.push({ from: job.edges[i] as string, to: job.edges[i + 1] as string });
  return {
    dom: job.dom,
    ...(job.thinking !== undefined ? { thinking: job.thinking } : {}),
    agents,
    edges,
    ...(job.directAnswer !== undefined ? { directAnswer: job.directAnswer } : {}),
  };
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 10_000);

export function simHandlers(): Handlers<SimMethods> {
  const tasks = new Map<number, MasBenchTask>();
  const held = new Map<number, Held>();
  return {
    async run(batch) {
      if (batch.resetTasks) tasks.clear();
      for (const t of batch.tasks) tasks.set(t.key, t.task as MasBenchTask);
      for (const id of batch.drop) held.delete(id);
      // Everything a call needs is read now, before any call runs (see the header).
      const calls = batch.jobs.map((job): (() => Promise<SimAnswer>) => {
        try {
          let h = held.get(job.runner);
          if (job.start) {
            const mb = tasks.get(job.start.task);
            if (!mb) throw new Error(`task ${job.start.task} was not sent`);
            h = { runners: simulatedRunners(mb, job.start.seed), task: taskOfMasbench(mb), agents: [] };
            held.set(job.runner, h);
          }
          if (!h) throw new Error(`runner ${job.runner} is not held here`);
          const runner = h;
          const design = designOfJob(job, runner.agents);
          runner.agents = design.agents;
          const task = (job.task as Task | undefined) ?? runner.task;
          if (job.kind === 'final') {
            held.delete(job.runner);
            return async () => ({
              kind: 'final',
              ...(await runner.runners.final({ design, task } as Parameters<SimulatedRunners['final']>[0])),
            });
          }
          return async () => ({ kind: 'intermediate', ...(await runner.runners.intermediate(design, task)) });
        } catch (e) {
          const text = message(e);
          return () => Promise.resolve({ kind: 'error', message: text });
        }
      });
      const answers = await Promise.all(
        calls.map((c) => c().catch((e: unknown): SimAnswer => ({ kind: 'error', message: message(e) }))),
      );
      return { answers };
    },
  };
}
