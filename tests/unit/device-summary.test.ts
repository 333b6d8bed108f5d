/**
 * The device benchmark's summary (bench/device/summary.ts) reads its ratios off the rows: each
 * option's gain is the default path over the path with it turned back (for an option off by
 * default, the path with it on over the default path), missing or skipped rows give null, and the
 * fastest path is the one with the most episodes/s.
 */
import { describe, expect, it } from 'vitest';
import {
  byRound,
  ratio,
  ITERATION_TURNED_ON,
  summarize,
  TURNED_BACK,
  TURNED_ON,
} from '../../bench/device/summary.ts';

describe('the device benchmark summary', () => {
  it('divides positive numbers only', () => {
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(2, 3)).toBe(0.667);
    for (const [a, b] of [
      [1, 0],
      [0, 1],
      ['skipped: past the deadline', 2],
      [2, undefined],
      [NaN, 1],
      [1, -1],
    ])
      expect(ratio(a, b)).toBeNull();
  });

  it('gives each option’s gain, the ratios to the CPU backends and the fastest path', () => {
    const s = summarize({
      iterations: [
        {
          config: 'default (B=8, G=8)',
          webgpu_episodes_per_s: 300,
          webgpu_serial_episodes_per_s: 250,
          webgpu_minibatch_passes_episodes_per_s: 200,
          webgpu_two_pass_sampler_episodes_per_s: 240,
          webgpu_exact_episodes_per_s: 320,
          webgpu_subgroups_episodes_per_s: 'skipped: past the deadline',
          webgpu_streams_episodes_per_s: 330,
          webgpu_overlap3_episodes_per_s: 270,
          webgpu_wasm_sampler_episodes_per_s: 450,
          wasm_episodes_per_s: 600,
          cpu_episodes_per_s: 120,
          webgpu_wasm_sampler_sim_pool_episodes_per_s: 540,
          cpu_sim_pool_episodes_per_s: 150,
          webgpu_wasm_sampler_rollout_pool_episodes_per_s: 720,
          cpu_rollout_pool_episodes_per_s: 160,
          webgpu_rollout_ms: 100,
          webgpu_by_round: [280, 320],
          cpu_by_round: [140, 100],
          webgpu_wasm_sampler_by_round: [450],
          webgpu_wasm_sampler_sim_pool_by_round: [630],
          cpu_sim_pool_by_round: [175, 125],
          webgpu_wasm_sampler_rollout_pool_by_round: [700, 500],
        },
      ],
      trainer: [
        {
          minibatch: 64,
          webgpu_update_ms: 2,
          webgpu_forward_ms: 1,
          webgpu_exact_update_ms: 4,
          webgpu_exact_forward_ms: 1.5,
          webgpu_no_siblings_update_ms: 2.2,
          webgpu_no_siblings_forward_ms: 1.25,
          webgpu_no_grad_groups_update_ms: 2.6,
          webgpu_no_grad_groups_forward_ms: 1,
          webgpu_subgroups_update_ms: 2.5,
          wasm_update_ms: 3,
        },
      ],
      tfjs_trainer: [{ minibatch: 1024, measure: 'forward', baton_ms: 5, tfjs_ms: 6 }],
      gpt: [
        { tokens: '16x256', params: 3, baton_webgpu_ms: 10, baton_webgpu_narrow_rows_ms: 12 },
        { tokens: '16x512', params: 11, baton_webgpu_ms: 60, baton_webgpu_narrow_rows_ms: 'skipped' },
      ],
    });
    const [it0] = s.iterations;
    expect(it0).toEqual({
      config: 'default (B=8, G=8)',
      webgpu_over_cpu: 2.5,
      webgpu_over_wasm: 0.5,
      webgpu_wasm_sampler_over_cpu: 3.75,
      // Paired within each round; a path with fewer rounds than the CPU's gives none.
      webgpu_over_cpu_by_round: [2, 3.2],
      webgpu_wasm_sampler_over_cpu_by_round: null,
      webgpu_wasm_sampler_sim_pool_over_cpu_sim_pool: 3.6,
      sim_pool_gain: { webgpu_wasm_sampler: 1.2, cpu: 1.25 },
      sim_pool_gain_by_round: { webgpu_wasm_sampler: [1.4], cpu: [1.25, 1.25] },
      webgpu_wasm_sampler_rollout_pool_over_cpu: 6,
      webgpu_wasm_sampler_rollout_pool_over_cpu_rollout_pool: 4.5,
      rollout_pool_gain: { webgpu_wasm_sampler: 1.6, cpu: 1.333 },
      webgpu_wasm_sampler_rollout_pool_over_cpu_by_round: [5, 5],
      fastest_path: 'webgpu_wasm_sampler_rollout_pool',
      gain_of: {
        [TURNED_BACK.webgpu_serial]: 1.2,
        [TURNED_BACK.webgpu_minibatch_passes]: 1.5,
        [TURNED_BACK.webgpu_two_pass_sampler]: 1.25,
        [TURNED_BACK.webgpu_exact]: 0.938,
        [TURNED_ON.webgpu_subgroups]: null,
        [ITERATION_TURNED_ON.webgpu_streams]: 1.1,
        [ITERATION_TURNED_ON.webgpu_overlap3]: 0.9,
      },
    });
    expect(s.trainer).toEqual([
      {
        minibatch: 64,
        'update_gain_of lanes products': 2,
        'forward_gain_of lanes products': 1.5,
        'update_gain_of sibling products': 1.1,
        'forward_gain_of sibling products': 1.25,
        'update_gain_of grouped gradient products': 1.3,
        'forward_gain_of grouped gradient products': 1,
        // Off by default: the twins' path over the default's time (2 / 2.5).
        'update_gain_of subgroup twins': 0.8,
        'forward_gain_of subgroup twins': null,
        update_webgpu_over_wasm: 1.5,
      },
    ]);
    expect(s.tfjs).toEqual([{ minibatch: 1024, measure: 'forward', tfjs_over_baton: 1.2 }]);
    expect(s.gpt).toEqual([
      { tokens: '16x256', params: 3, 'gain_of wide rows': 1.2 },
      { tokens: '16x512', params: 11, 'gain_of wide rows': null },
    ]);
  });

  it('pairs rounds only where both paths have them', () => {
    expect(byRound({ a_by_round: [2, 'skipped'], b_by_round: [1, 1] }, 'a', 'b')).toEqual([2, null]);
    expect(byRound({ a_by_round: [], b_by_round: [] }, 'a', 'b')).toBeNull();
    expect(byRound({ a_by_round: [1] }, 'a', 'b')).toBeNull();
  });

  it('is empty where the rows are missing', () => {
    expect(summarize({ iterations: { skipped: 'no' } })).toEqual({
      iterations: [],
      trainer: [],
      tfjs: [],
      gpt: [],
    });
  });
});
