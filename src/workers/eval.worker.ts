/// <reference lib="webworker" />
import { runEvaluation, masbenchTasks, type EvalConfig, type EvalProgress } from '../eval/index.ts';
import { evalExecutor } from '../executor/index.ts';
import { chooseBackend } from '../gpu/index.ts';
import { DEFAULT_POOL, PolicyNetwork, priorCheckpoint, randomCheckpoint } from '../policy/index.ts';
import { evalMethods } from './eval.methods.ts';
import { serveRpc } from './rpc/server.ts';

/**
 * Runs an evaluation off the main thread: 5 methods × 300 MASBench tasks on the simulator is
 * seconds of solid work. The simulator only (generated tasks); policies `prior` and `random:S` on
 * the CPU compute backend. Progress is throttled to one message per finished job plus counters.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;

async function networks(config: EvalConfig): Promise<Map<string, PolicyNetwork>> {
  const nets = new Map<string, PolicyNetwork>();
  for (const m of config.methods) {
    if (m.kind !== 'policy' || nets.has(m.checkpoint)) continue;
    const random = /^random(?::(\d+))?$/.exec(m.checkpoint);
    const cp =
      m.checkpoint === 'prior'
        ? priorCheckpoint(DEFAULT_POOL)
        : random
          ? randomCheckpoint(DEFAULT_POOL, Number(random[1] ?? '0'))
          : null;
    if (!cp)
      throw new Error(
        `policy "${m.checkpoint}": the page evaluates prior and random:S; use baton eval for checkpoint files`,
      );
    nets.set(m.checkpoint, await PolicyNetwork.create(cp, await chooseBackend('cpu')));
  }
  return nets;
}

serveRpc(
  scope,
  evalMethods,
  {
    async evaluate(input, { signal, progress }) {
      const { config } = input;
      if (config.taskSet.kind !== 'masbench' || config.backend.kind !== 'simulated')
        throw new Error(
          'the page runs generated MASBench tasks on the simulator; use baton eval for the rest',
        );
      const nets = await networks(config);
      try {
        const executor = evalExecutor({
          backend: 'simulated',
          budget: config.budget,
          startedAt: () => input.createdAt,
        });
        const { rows: _rows, ...doc } = await runEvaluation({
          config,
          tasks: masbenchTasks(config.taskSet),
          executor,
          policyFor: (m) => {
            const net = nets.get(m.checkpoint);
            if (!net) throw new Error(`no network for ${m.checkpoint}`);
            return { net, pool: DEFAULT_POOL };
          },
          done: input.done,
          concurrency: input.concurrency,
          createdAt: input.createdAt,
          signal,
          onRow: async (row, trace) => {
            progress({ kind: 'row', row, trace });
            // Let a cancel message in between jobs.
            await new Promise<void>((r) => setTimeout(r, 0));
          },
          onProgress: (p: EvalProgress) => progress({ kind: 'progress', ...p }),
        });
        return doc;
      } finally {
        for (const n of nets.values()) n.dispose();
      }
    },
  },
  'eval',
);
