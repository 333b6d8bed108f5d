// What softmax.wgsl and softmax_pair.wgsl share, prepended to both (webgpu/kernels.ts): the value of
// a masked log-probability, and a row's max and sum of exponentials over its allowed entries, in
// increasing column (so both kernels compute them with the same code: the same bits). It reads the
// kernel's own `x`, `mask` and `p.cols` (WGSL lets a function use module-scope names declared later).
const MASKED = -1e30;

// (max, Σ exp(x − max)) of row o (mask row mo) over the allowed entries; (-3e38, 0) when none is.
fn rowStats(o: u32, mo: u32) -> vec2f {
  var mx = -3.0e38;
  for (var c = 0u; c < p.cols; c++) {
    if (mask[mo + c] > 0.5) {
      mx = max(mx, x[o + c]);
    }
  }
  var total = 0.0;
  for (var c = 0u; c < p.cols; c++) {
    if (mask[mo + c] > 0.5) {
      total += exp(x[o + c] - mx);
    }
  }
  return vec2f(mx, total);
}
