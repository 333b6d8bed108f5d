// Row softmax (LOG = 0) or log-softmax (LOG = 1) over a row-major [rows, cols] x, one invocation
// per row (rows are action sets or attention rows: short, and software adapters run barrier-free
// kernels far faster; see reduce.wgsl).
// mask is f32 [maskRows, cols], 1 = allowed, 0 = masked; row r uses mask row r % maskRows (a
// causal [T, T] mask serves every batch and head). Masked entries get probability exactly 0 and
// log-probability MASKED (finite, so p·log p stays 0). Unmasked tensors bind a [1, cols] mask of ones.
// A row with every entry masked is all 0 (softmax) or all MASKED (log-softmax).
override LOG: u32 = 0u;

struct P {
  rows: u32,
  cols: u32,
  maskRows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> mask: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.rows) {
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
    if (LOG == 1u) {
      y[o + c] = select(MASKED, x[o + c] - mx - lse, ok);
    } else {
      y[o + c] = select(0.0, exp(x[o + c] - mx) / total, ok);
    }
  }
}
