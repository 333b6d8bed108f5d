/**
 * Running the finished construction (or keeping it without a run) on the Build page: the trace
 * goes to the recents and opens in the viewer. On the simulator for generated tasks; on the
 * Settings provider within the Settings run budget, saving the growing trace as it goes.
 */
import type { Problem } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { episodeDone } from '../../policy/index.ts';
import { sessionTrace } from '../construction.ts';
import { policyProblem } from '../services/policy-checkpoints.ts';
import { errorText } from '../services/problems.ts';
import { executeRun, runOnSimulator } from '../services/runner.ts';
import type { SliceCreator } from '../store.ts';
import { providerBlockers, remoteSpecOf, runBudgetOf } from './settings.ts';

export interface BuildRunSlice {
  buildRunning: boolean;
  /** Agents finished / in the design, while the finished design runs on a provider. */
  buildRunProgress: { done: number; total: number } | null;
  /**
   * Stores the construction as a trace, executed on `target` (`simulator`: generated tasks;
   * `provider`: the Settings provider; `none`: the construction alone); returns its id.
   */
  runBuild(target?: 'simulator' | 'provider' | 'none'): Promise<string | null>;
  /** Stops the provider run of the finished design (the trace keeps what finished). */
  stopBuildRun(): void;
}

export const createBuildRunSlice: SliceCreator<BuildRunSlice> = (set, get) => {
  let runAbort: AbortController | null = null;
  const problem = (p: Problem[]): void => set({ buildProblems: p });

  return {
    buildRunning: false,
    buildRunProgress: null,

    async runBuild(target) {
      const s = get().buildSession;
      if (!s || get().buildRunning) return null;
      get().setBuildAutoPlay(false);
      const done = episodeDone(s);
      const to = target ?? (s.masbench && done ? 'simulator' : 'none');
      let trace = sessionTrace(s);
      if (trace.design.agents.length === 0) {
        problem([{ code: 'E_TASK', message: 'Add at least one agent before running the design.' }]);
        return null;
      }
      if (to !== 'none' && !done) {
        problem([{ code: 'E_TASK', message: 'EXIT first: only a finished design is run.' }]);
        return null;
      }
      const st = get();
      const remote = to === 'provider' ? remoteSpecOf(st) : null;
      if (to === 'provider') {
        const blockers = providerBlockers(st);
        if (blockers.length > 0 || !remote) {
          problem(blockers.map((b) => policyProblem('E_PROVIDER', b)));
          return null;
        }
      }
      if (to === 'simulator' && !s.masbench) {
        problem([{ code: 'E_TASK', message: 'The simulator runs generated MASBench tasks only.' }]);
        return null;
      }
      set({ buildRunning: true, buildProblems: [] });
      const save = (t: Trace): Promise<void> =>
        get().rememberTraces([{ trace: t, source: 'app', sourceLabel: 'Build page' }]);
      try {
        if (to === 'simulator' && s.masbench) {
          const r = await runOnSimulator(trace, s.masbench, s.seed);
          if (!r.ok) {
            problem(r.errors);
            return null;
          }
          trace = r.value;
        } else if (remote) {
          runAbort = new AbortController();
          const total = trace.design.agents.length;
          set({ buildRunProgress: { done: 0, total } });
          let finished = 0;
          trace = await executeRun({
            trace: {
              ...trace,
              execution: { ...trace.execution, status: 'running', startedAt: trace.createdAt },
            },
            backend: remote,
            budget: runBudgetOf(st),
            concurrency: st.concurrency,
            signal: runAbort.signal,
            save,
            onEvent: (e) => {
              if (e.type === 'agent.end' || e.type === 'agent.error')
                set({ buildRunProgress: { done: ++finished, total } });
            },
          });
        }
        if (!remote) await save(trace);
        return trace.id;
      } catch (e) {
        problem([policyProblem('E_POLICY_STEP', errorText(e))]);
        return null;
      } finally {
        runAbort = null;
        set({ buildRunning: false, buildRunProgress: null });
      }
    },

    stopBuildRun() {
      runAbort?.abort();
    },
  };
};
