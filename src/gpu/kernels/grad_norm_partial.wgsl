// First level of the global gradient norm (grad_norm.wgsl is the second): workgroup b sums the
// squares of block b of the gradient arena g (n floats; BLOCK = 4096 consecutive floats) into
// partial[b]. Each of its 256 invocations adds 16 squares in increasing index (coalesced: stride
// 256), then a fixed tree adds the 256 sums (tree.wgsl, or tree_sg.wgsl: the same bits). A gradient of millions of floats is
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

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, place: Place) {
  let lid = position(place);
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
  let total = treeFold(lid, acc, W, false);
  if (lid == 0u && b < blocks) {
    partial[b] = total;
  }
}
