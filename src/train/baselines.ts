/**
 * Preset baselines: how far the untrained policies are from what the simulator allows, per preset,
 * on the same held-out tasks (test-split seeds) a trained policy is scored on.
 *
 * - Each given policy (the prior, `random:SEED`, …) builds one greedy design per task.
 * - The ceiling estimate is best-of-G: the `ceiling` policy samples G constructions per task
 *   (temperature 1), each executed with its own simulator seed, and the one with the highest
 *   reward R counts. It is an oracle selection (it looks at the graded outcome), so it bounds what
 *   picking among that policy's own designs could reach; a policy could still do better with
 *   designs it never samples.
 *
 * Accuracy carries a 95% Wilson interval (evaluate.ts). Pure: runners and backend are injected.
 */
import { mix32 } from '../core/rng.ts';
import type { BackendChoice } from '../gpu/index.ts';
import { PolicyNetwork, type PolicyCheckpoint, type RolePool } from '../policy/index.ts';
import { meanOf } from './ablation-stats.ts';
import { rewardOf } from './advantages.ts';
import { trainConfig, type PresetName } from './config.ts';
import { wilson } from './evaluate.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type RunnersFor } from './rollout.ts';
import { heldOutRollouts } from './structure.ts';

export interface BaselineScore {
  policy: string;
  n: number;
  accuracy: number;
  /** 95% Wilson interval of the accuracy. */
  interval: [number, number];
  reward: number;
  tokens: number;
  agents: number;
}

export interface PresetBaseline {
  preset: PresetName;
  learns: string;
  policies: BaselineScore[];
  /** Best-of-G by simulator reward among the ceiling policy's samples. */
  bestOfG: BaselineScore & { groupSize: number };
}

export interface BaselineOptions {
  pool: RolePool;
  choice: BackendChoice;
  runners: RunnersFor;
  presets: readonly PresetName[];
  /** Held-out tasks per preset and their seed. */
  n: number;
  seed: number;
  /** Greedy policies to score, by display name. */
  policies: readonly { name: string; checkpoint: PolicyCheckpoint }[];
  /** The policy whose samples give the best-of-G ceiling, and G. */
  ceiling: { name: string; checkpoint: PolicyCheckpoint; groupSize: number };
  onProgress?: (p: { preset: PresetName; policy: string }) => void;
}

function scoreOf(
  policy: string,
  rows: readonly { correct: boolean; reward: number; tokens: number; agents: number }[],
): BaselineScore {
  const k = rows.filter((r) => r.correct).length;
  return {
    policy,
    n: rows.length,
    accuracy: rows.length ? k / rows.length : 0,
    interval: wilson(k, rows.length),
    reward: meanOf(rows.map((r) => r.reward)),
    tokens: meanOf(rows.map((r) => r.tokens)),
    agents: meanOf(rows.map((r) => r.agents)),
  };
}

export async function presetBaselines(o: BaselineOptions): Promise<PresetBaseline[]> {
  const out: PresetBaseline[] = [];
  const nets = await Promise.all(o.policies.map((p) => PolicyNetwork.create(p.checkpoint, o.choice)));
  const ceilingNet = await PolicyNetwork.create(o.ceiling.checkpoint, o.choice);
  try {
    for (const preset of o.presets) {
      const config = trainConfig({ preset });
      const policies: BaselineScore[] = [];
      for (const [pi, p] of o.policies.entries()) {
        o.onProgress?.({ preset, policy: p.name });
        const rows = await heldOutRollouts({
          net: nets[pi] as PolicyNetwork,
          pool: o.pool,
          config,
          runners: o.runners,
          n: o.n,
          seed: o.seed,
          greedy: true,
        });
        policies.push(
          scoreOf(
            p.name,
            rows.map((r) => ({
              correct: r.rollout.correct === true,
              reward: r.reward,
              tokens: r.rollout.tokens,
              agents: r.rollout.agents,
            })),
          ),
        );
      }
      o.onProgress?.({ preset, policy: `best-of-${o.ceiling.groupSize} ${o.ceiling.name}` });
      const tasks = drawTasks(PRESET_TABLE[preset], o.seed, o.n, 'test');
      const best: { correct: boolean; reward: number; tokens: number; agents: number }[] = [];
      for (const [i, task] of tasks.entries()) {
        let top: (typeof best)[number] | null = null;
        for (let g = 0; g < o.ceiling.groupSize; g++) {
          const r = await rollout({
            net: ceilingNet,
            pool: o.pool,
            task,
            seed: mix32(mix32(o.seed + i) ^ Math.imul(0x9e3779b9, g + 1)),
            runners: o.runners,
            maxSteps: config.maxSteps,
            temperature: 1,
            greedy: false,
            intermediate: false,
            rewards: config.actionReward,
          });
          const reward = rewardOf(config, r);
          if (top === null || reward > top.reward)
            top = { correct: r.correct === true, reward, tokens: r.tokens, agents: r.agents };
        }
        if (top) best.push(top);
      }
      out.push({
        preset,
        learns: PRESET_TABLE[preset].learns,
        policies,
        bestOfG: {
          ...scoreOf(`best-of-${o.ceiling.groupSize} ${o.ceiling.name}`, best),
          groupSize: o.ceiling.groupSize,
        },
      });
    }
  } finally {
    for (const n of nets) n.dispose();
    ceilingNet.dispose();
  }
  return out;
}

/** One row per preset and policy: accuracy [Wilson 95%], reward, tokens/task, agents. */
export function baselinesMarkdown(rows: readonly PresetBaseline[]): string {
  const lines = [
    '| preset | policy | n | accuracy [95% Wilson] | reward | tokens/task | agents |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const b of rows)
    for (const s of [...b.policies, b.bestOfG])
      lines.push(
        `| ${b.preset} | ${s.policy} | ${s.n} | ${s.accuracy.toFixed(2)} [${s.interval[0].toFixed(2)}, ${s.interval[1].toFixed(2)}] | ${s.reward.toFixed(3)} | ${s.tokens.toFixed(0)} | ${s.agents.toFixed(2)} |`,
      );
  return lines.join('\n');
}
