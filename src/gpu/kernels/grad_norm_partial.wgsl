// First level of the global gradient norm (grad_norm.wgsl is the second): workgroup b sums the
// squares of block b of the gradient arena g (n floats; BLOCK = 4096 consecutive floats) into
// partial[b]. Each of its 256 invocations adds 16 squares in increasing index (coalesced: stride
// 256), then a tree in workgroup memory adds the 256 sums. A gradient of millions of floats is
// read by hundreds of workgroups, not by one. Tolerance: see grad_norm.wgsl.
const W = 256u;
const PER = 16u;
const BLOCK = 4096u;

struct P {
  n: u32,
  clipNorm: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> g: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;

var<workgroup> red: array<f32, 256>;

@compute @workgroup_size(256)
fn main(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let b = wid.x + wid.y * nwg.x;
  let blocks = (p.n + BLOCK - 1u) / BLOCK;
  let base = b * BLOCK;
  var acc = 0.0;
  if (b < blocks) {
    for (var j = 0u; j < PER; j++) {
      let i = base + j * W + lid;
      if (i < p.n) {
        let v = g[i];
        acc += v * v;
      }
    }
  }
  red[lid] = acc;
  workgroupBarrier();
  for (var s = W / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      red[lid] = red[lid] + red[lid + s];
    }
    workgroupBarrier();
  }
  if (lid == 0u && b < blocks) {
    partial[b] = red[0];
  }
}
