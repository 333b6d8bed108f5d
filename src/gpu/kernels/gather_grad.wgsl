// The backward of a row scatter followed by the gradient of the binary op that fed it, in one
// dispatch (plan-fuse.ts): gather_rows.wgsl with ACCUMULATE = 1 into gm (the gradient of the
// binary op's output), then binary_grad.wgsl for one operand (WHICH) reading that gradient:
//   gm[i] += table[idx[i / cols], i % cols]  (0 for an index ≥ tableRows)   for i < n1
//   g[i]  += d · gm[i]                                                      for i < n2
// d as in binary_grad.wgsl. Each invocation reads back only its own element i of gm, so running
// both steps in one invocation is the two dispatches' arithmetic, in the same order: same bits.
override OP: u32 = 0u;
override WHICH: u32 = 0u;

struct P {
  n1: u32,
  n2: u32,
  cols: u32,
  tableRows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> gm: array<f32>;
@group(0) @binding(4) var<storage, read> a: array<f32>;
@group(0) @binding(5) var<storage, read> b: array<f32>;
@group(0) @binding(6) var<storage, read_write> g: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= max(p.n1, p.n2)) {
    return;
  }
  var gy = 0.0;
  if (i < p.n1) {
    let r = idx[i / p.cols];
    var v = 0.0;
    if (r < p.tableRows) {
      v = table[r * p.cols + i % p.cols];
    }
    gy = gm[i] + v;
    gm[i] = gy;
  } else {
    gy = gm[i];
  }
  if (i < p.n2) {
    var d = 1.0;
    if (OP == 1u && WHICH == 1u) {
      d = -1.0;
    }
    if (OP == 2u) {
      d = select(b[i], a[i], WHICH == 1u);
    }
    g[i] = g[i] + d * gy;
  }
}
