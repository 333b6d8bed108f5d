// The PPO-clipped surrogate (graph.ts `ppoClip`), first pass: per row i of logp [rows], with
// r = exp(logp − old) and A the advantage, rowLoss[i] = w·L_i and coef[i] = w·∂L_i/∂logp (the
// backward reads coef; reduce.wgsl sums rowLoss into the scalar). KL = 1 adds β·k3 with the
// reference log-probabilities; KL = 0 never reads `refp`. One invocation per row. The CPU reference
// (cpu/ops-rows.ts `ppoClip`) works in f64: values agree to f32 rounding of exp.
override KL: u32 = 0u;

struct P {
  rows: u32,
  clipEps: f32,
  klCoef: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> logp: array<f32>;
@group(0) @binding(2) var<storage, read> old: array<f32>;
@group(0) @binding(3) var<storage, read> adv: array<f32>;
@group(0) @binding(4) var<storage, read> w: array<f32>;
@group(0) @binding(5) var<storage, read> refp: array<f32>;
@group(0) @binding(6) var<storage, read_write> rowLoss: array<f32>;
@group(0) @binding(7) var<storage, read_write> coef: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= p.rows) {
    return;
  }
  let wi = w[i];
  if (wi == 0.0) {
    rowLoss[i] = 0.0;
    coef[i] = 0.0;
    return;
  }
  let lp = logp[i];
  let r = exp(lp - old[i]);
  let a = adv[i];
  let lo = 1.0 - p.clipEps;
  let hi = 1.0 + p.clipEps;
  let clipped = (a > 0.0 && r > hi) || (a < 0.0 && r < lo);
  var li = -select(r, clamp(r, lo, hi), clipped) * a;
  var gi = select(-r * a, 0.0, clipped);
  if (KL == 1u) {
    let d = refp[i] - lp;
    let e = exp(d);
    li += p.klCoef * (e - d - 1.0);
    gi += p.klCoef * (1.0 - e);
  }
  rowLoss[i] = wi * li;
  coef[i] = wi * gi;
}
