// Two softmax_grad.wgsl dispatches that accumulate into the same gx (the gradients of a softmax
// and a log-softmax of one tensor), in one dispatch (plan-fuse.ts): each invocation runs the first
// part's row (LOG1, y1, gy1) and then the second's (LOG2, y2, gy2) on its own row, reading back
// what the first wrote, with softmax_grad.wgsl's expressions:
//   log-softmax: gx_i += gy_i − exp(y_i) · Σ_j gy_j;   softmax: gx_i += y_i · (gy_i − Σ_j gy_j · y_j)
// Rows are independent, so this is the two dispatches' arithmetic in their order: same bits.
override LOG1: u32 = 0u;
override LOG2: u32 = 0u;

struct P {
  n1: u32,
  n2: u32,
  cols: u32,
  maskRows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> y1: array<f32>;
@group(0) @binding(2) var<storage, read> gy1: array<f32>;
@group(0) @binding(3) var<storage, read> y2: array<f32>;
@group(0) @binding(4) var<storage, read> gy2: array<f32>;
@group(0) @binding(5) var<storage, read> mask: array<f32>;
@group(0) @binding(6) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  let o = r * p.cols;
  let mo = (r % p.maskRows) * p.cols;
  if (r < p.n1) {
    var total = 0.0;
    for (var c = 0u; c < p.cols; c++) {
      if (mask[mo + c] > 0.5) {
        if (LOG1 == 1u) {
          total += gy1[o + c];
        } else {
          total += gy1[o + c] * y1[o + c];
        }
      }
    }
    for (var c = 0u; c < p.cols; c++) {
      if (mask[mo + c] > 0.5) {
        let yc = y1[o + c];
        let g = gy1[o + c];
        if (LOG1 == 1u) {
          gx[o + c] = gx[o + c] + g - exp(yc) * total;
        } else {
          gx[o + c] = gx[o + c] + yc * (g - total);
        }
      }
    }
  }
  if (r < p.n2) {
    var total = 0.0;
    for (var c = 0u; c < p.cols; c++) {
      if (mask[mo + c] > 0.5) {
        if (LOG2 == 1u) {
          total += gy2[o + c];
        } else {
          total += gy2[o + c] * y2[o + c];
        }
      }
    }
    for (var c = 0u; c < p.cols; c++) {
      if (mask[mo + c] > 0.5) {
        let yc = y2[o + c];
        let g = gy2[o + c];
        if (LOG2 == 1u) {
          gx[o + c] = gx[o + c] + g - exp(yc) * total;
        } else {
          gx[o + c] = gx[o + c] + yc * (g - total);
        }
      }
    }
  }
}
