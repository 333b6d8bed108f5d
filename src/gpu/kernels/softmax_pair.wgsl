// softmax.wgsl with LOG = 0 and with LOG = 1 over the same x and mask, in one dispatch
// (plan-fuse.ts): each row's max and sum of exponentials are computed once, as either dispatch
// computes them, and both outputs are written with softmax.wgsl's expressions:
//   prob[r, c] = exp(x − max) / Σ   (0 where masked)          for r < nProb
//   logp[r, c] = x − max − log Σ    (MASKED where masked)     for r < nLog
// Same bits as the two dispatches. One invocation per row, as in softmax.wgsl.
struct P {
  nProb: u32,
  nLog: u32,
  cols: u32,
  maskRows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read_write> prob: array<f32>;
@group(0) @binding(4) var<storage, read_write> logp: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= max(p.nProb, p.nLog)) {
    return;
  }
  let o = r * p.cols;
  let mo = (r % p.maskRows) * p.cols;
  let stats = rowStats(o, mo);
  let mx = stats.x;
  let total = stats.y;
  let lse = log(total);
  for (var c = 0u; c < p.cols; c++) {
    let ok = mask[mo + c] > 0.5;
    if (r < p.nProb) {
      prob[o + c] = select(0.0, exp(x[o + c] - mx) / total, ok);
    }
    if (r < p.nLog) {
      logp[o + c] = select(MASKED, x[o + c] - mx - lse, ok);
    }
  }
}
