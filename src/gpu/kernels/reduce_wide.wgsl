// y[r] = reduce_c x[r·cols + c] (reduce.wgsl's op) for long rows: whole-vector sums such as a
// loss over thousands of rows, which one invocation per row would walk alone. One workgroup of 256
// invocations per row (the workgroup's index in a grid that may be 2-D): invocation t folds columns
// t, t + 256, t + 512, … in increasing order, then the 256 partial results are folded in a fixed
// tree, t with t + 128, then t + 64, …, t + 1 (tree.wgsl, or tree_sg.wgsl's subgroup shuffles with
// the same bits). OP: 0 sum, 1 mean, 2 max. Planned for rows of at least REDUCE_WIDE_COLS columns,
// at most REDUCE_WIDE_ROWS of them on a software adapter, any number with `wideRows`
// (plan-forward.ts): on a software adapter few workgroups, so few barriers, which it pays for
// (reduce.wgsl). Precision: max is exact in any order; a sum adds the same terms in another order
// than the CPU's serial sum, held to it at |Δ| ≤ 2⁻²²·√cols·Σ|x| and bit for bit where every
// partial sum is exact (webgpu/reduce.test.ts).
override OP: u32 = 0u;
const WG: u32 = 256u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

fn fold(a: f32, b: f32) -> f32 {
  if (OP == 2u) {
    return max(a, b);
  }
  return a + b;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, place: Place) {
  let r = wid.x + wid.y * nwg.x;
  if (r >= p.rows) {
    return;
  }
  let t = position(place);
  let o = r * p.cols;
  var acc = select(0.0, -3.0e38, OP == 2u);
  for (var c = t; c < p.cols; c += WG) {
    acc = fold(acc, x[o + c]);
  }
  let total = treeFold(t, acc, WG, OP == 2u);
  if (t == 0u) {
    y[r] = select(total, total / f32(p.cols), OP == 1u);
  }
}
