/**
 * The device benchmark's answers, read off its own rows (`summary` in baton.json): the issue's
 * ratios on this machine, and what each speed option gives: the default path over the path with
 * that option turned back, or the path with an option turned on that is off by default over the
 * default path (above 1: the option helps here). Pure: takes the rows run.ts
 * collected, measures nothing. A ratio whose rows are missing or were skipped is null.
 */

type Row = Record<string, unknown>;

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : null);

/** a / b, rounded to 3 decimals; null unless both are positive numbers. */
export function ratio(a: unknown, b: unknown): number | null {
  const x = num(a);
  const y = num(b);
  return x === null || y === null ? null : Math.round((x / y) * 1000) / 1000;
}

/** The iteration paths run.ts times with one default option turned back, and the option each turns back. */
export const TURNED_BACK = {
  webgpu_serial: 'overlap (steps in flight)',
  webgpu_minibatch_passes: 'log π over the whole batch (passRows)',
  webgpu_two_pass_sampler: 'one sampler pass per step (fused edge mode)',
  webgpu_exact: 'lanes products',
} as const;

/** The paths (iterations and trainer rows) with one option turned on that is off by default. */
export const TURNED_ON = {
  webgpu_subgroups: 'subgroup twins',
} as const;

/** Iteration paths with a trainer option set past its default (no trainer rows). */
export const ITERATION_TURNED_ON = {
  webgpu_streams: 'sampler streams (2)',
  webgpu_overlap3: 'three steps in flight (overlap 3)',
} as const;

/** The trainer rows' WebGPU variants with one default option turned back. */
const TRAINER_TURNED_BACK = {
  webgpu_exact: 'lanes products',
  webgpu_no_siblings: 'sibling products',
  webgpu_no_grad_groups: 'grouped gradient products',
} as const;

export interface DeviceSummary {
  /** Per iteration config: WebGPU's episodes/s over each CPU backend's and over the fastest path's. */
  iterations: Row[];
  /** Per minibatch: update and forward time of each turned-back variant over the default's. */
  trainer: Row[];
  /** Per minibatch and measure: TF.js time over Baton's (above 1: Baton is faster). */
  tfjs: Row[];
  /** Per GPT-2-style size: the step with layer norm one invocation per row over the default's. */
  gpt: Row[];
}

/** Round by round, path `a`'s episodes/s over path `b`'s (`_by_round`); null unless both have rounds. */
export function byRound(r: Row, a: string, b: string): (number | null)[] | null {
  const xs = r[`${a}_by_round`];
  const ys = r[`${b}_by_round`];
  if (!Array.isArray(xs) || !Array.isArray(ys) || xs.length === 0 || xs.length !== ys.length) return null;
  return xs.map((x, i) => ratio(x, ys[i]));
}

export function summarize(out: Row): DeviceSummary {
  const rows = (key: string): Row[] => (Array.isArray(out[key]) ? (out[key] as Row[]) : []);
  const iterations = rows('iterations').map((r) => {
    const eps = (label: string): unknown => r[`${label}_episodes_per_s`];
    const gains: Row = {};
    for (const [label, option] of Object.entries(TURNED_BACK))
      gains[option] = ratio(eps('webgpu'), eps(label));
    for (const [label, option] of Object.entries({ ...TURNED_ON, ...ITERATION_TURNED_ON }))
      gains[option] = ratio(eps(label), eps('webgpu'));
    const paths = Object.keys(r)
      .filter((k) => k.endsWith('_episodes_per_s') && num(r[k]) !== null)
      .map((k) => ({ path: k.slice(0, -'_episodes_per_s'.length), eps: r[k] as number }));
    const best = paths.reduce<{ path: string; eps: number } | null>(
      (b, p) => (b && b.eps >= p.eps ? b : p),
      null,
    );
    return {
      config: r.config,
      webgpu_over_cpu: ratio(eps('webgpu'), eps('cpu')),
      webgpu_over_wasm: ratio(eps('webgpu'), eps('wasm')),
      webgpu_wasm_sampler_over_cpu: ratio(eps('webgpu_wasm_sampler'), eps('cpu')),
      // Both with the simulator pool (src/workers/sim-pool.ts), and what the pool gives each.
      webgpu_wasm_sampler_sim_pool_over_cpu_sim_pool: ratio(
        eps('webgpu_wasm_sampler_sim_pool'),
        eps('cpu_sim_pool'),
      ),
      sim_pool_gain: {
        webgpu_wasm_sampler: ratio(eps('webgpu_wasm_sampler_sim_pool'), eps('webgpu_wasm_sampler')),
        cpu: ratio(eps('cpu_sim_pool'), eps('cpu')),
      },
      sim_pool_gain_by_round: {
        webgpu_wasm_sampler: byRound(r, 'webgpu_wasm_sampler_sim_pool', 'webgpu_wasm_sampler'),
        cpu: byRound(r, 'cpu_sim_pool', 'cpu'),
      },
      // With the rollout pool (src/workers/rollout-pool.ts): against the TypeScript backend alone and
      // with the same pool, and what the pool gives each path.
      webgpu_wasm_sampler_rollout_pool_over_cpu: ratio(eps('webgpu_wasm_sampler_rollout_pool'), eps('cpu')),
      webgpu_wasm_sampler_rollout_pool_over_cpu_rollout_pool: ratio(
        eps('webgpu_wasm_sampler_rollout_pool'),
        eps('cpu_rollout_pool'),
      ),
      rollout_pool_gain: {
        webgpu_wasm_sampler: ratio(eps('webgpu_wasm_sampler_rollout_pool'), eps('webgpu_wasm_sampler')),
        cpu: ratio(eps('cpu_rollout_pool'), eps('cpu')),
      },
      webgpu_wasm_sampler_rollout_pool_over_cpu_by_round: byRound(
        r,
        'webgpu_wasm_sampler_rollout_pool',
        'cpu',
      ),
      // The same ratios within each round of the interleaved iterations (rows.ts): how far they
      // spread while the host's speed drifts.
      webgpu_over_cpu_by_round: byRound(r, 'webgpu', 'cpu'),
      webgpu_wasm_sampler_over_cpu_by_round: byRound(r, 'webgpu_wasm_sampler', 'cpu'),
      fastest_path: best?.path ?? null,
      gain_of: gains,
    };
  });
  const trainer = rows('trainer').map((r) => {
    const s: Row = { minibatch: r.minibatch };
    for (const [label, option] of Object.entries(TRAINER_TURNED_BACK)) {
      s[`update_gain_of ${option}`] = ratio(r[`${label}_update_ms`], r.webgpu_update_ms);
      s[`forward_gain_of ${option}`] = ratio(r[`${label}_forward_ms`], r.webgpu_forward_ms);
    }
    for (const [label, option] of Object.entries(TURNED_ON)) {
      s[`update_gain_of ${option}`] = ratio(r.webgpu_update_ms, r[`${label}_update_ms`]);
      s[`forward_gain_of ${option}`] = ratio(r.webgpu_forward_ms, r[`${label}_forward_ms`]);
    }
    s.update_webgpu_over_wasm = ratio(r.wasm_update_ms, r.webgpu_update_ms);
    return s;
  });
  const tfjs = rows('tfjs_trainer').map((r) => ({
    minibatch: r.minibatch,
    measure: r.measure,
    tfjs_over_baton: ratio(r.tfjs_ms, r.baton_ms),
  }));
  const gpt = rows('gpt').map((r) => ({
    tokens: r.tokens,
    params: r.params,
    'gain_of wide rows': ratio(r.baton_webgpu_narrow_rows_ms, r.baton_webgpu_ms),
  }));
  return { iterations, trainer, tfjs, gpt };
}
