// out[c] (+)= Σ_r x[r·cols + c] for a row-major [rows, cols] x: bias and layer-norm parameter
// gradients. One invocation per column; ACCUMULATE = 1 adds into out instead of overwriting it.
override ACCUMULATE: u32 = 1u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let c = gid.x;
  if (c >= p.cols) {
    return;
  }
  var s = 0.0;
  for (var r = 0u; r < p.rows; r++) {
    s += x[r * p.cols + c];
  }
  if (ACCUMULATE == 1u) {
    out[c] = out[c] + s;
  } else {
    out[c] = s;
  }
}
