// out[c] (+)= Σ_r x[r·cols + c] for a row-major [rows, cols] x: bias and layer-norm parameter
// gradients. Second level of a two-level reduction: col_partial.wgsl has summed blocks of 64 rows
// into partial[b, c]; one invocation per column adds the ⌈rows / 64⌉ block sums in order. Up to 64
// rows that is 0 + s = s, the one-pass sum in increasing r (the CPU's order, bit for bit); more
// rows sum in another order of the same terms. ACCUMULATE = 1 adds into out instead of overwriting it.
override ACCUMULATE: u32 = 1u;
const BLOCK: u32 = 64u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let c = gid.x;
  if (c >= p.cols) {
    return;
  }
  let blocks = (p.rows + BLOCK - 1u) / BLOCK;
  var s = 0.0;
  for (var b = 0u; b < blocks; b++) {
    s += partial[b * p.cols + c];
  }
  if (ACCUMULATE == 1u) {
    out[c] = out[c] + s;
  } else {
    out[c] = s;
  }
}
