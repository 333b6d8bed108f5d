// Backward of softmax.wgsl, one invocation per row, accumulating into gx:
//   log-softmax (LOG = 1): gx_i += gy_i − exp(y_i) · Σ_j gy_j
//   softmax     (LOG = 0): gx_i += y_i · (gy_i − Σ_j gy_j · y_j)
// Sums run over allowed entries only; masked entries receive no gradient.
override LOG: u32 = 0u;

struct P {
  rows: u32,
  cols: u32,
  maskRows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read> gy: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<f32>;
@group(0) @binding(4) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.rows) {
    return;
  }
  let o = r * p.cols;
  let mo = (r % p.maskRows) * p.cols;
  var total = 0.0;
  for (var c = 0u; c < p.cols; c++) {
    if (mask[mo + c] > 0.5) {
      if (LOG == 1u) {
        total += gy[o + c];
      } else {
        total += gy[o + c] * y[o + c];
      }
    }
  }
  for (var c = 0u; c < p.cols; c++) {
    if (mask[mo + c] > 0.5) {
      let yc = y[o + c];
      let g = gy[o + c];
      if (LOG == 1u) {
        gx[o + c] = gx[o + c] + g - exp(yc) * total;
      } else {
        gx[o + c] = gx[o + c] + yc * (g - total);
      }
    }
  }
}
