// Global gradient norm over the whole parameter-gradient arena g (n floats), in one workgroup of 256:
// out[0] = ‖g‖₂, out[1] = clip scale = min(1, clipNorm / (‖g‖₂ + 1e-6)), or 1 when clipNorm ≤ 0.
// adam.wgsl multiplies every gradient by out[1], so clipping needs no read-back.
struct P {
  n: u32,
  clipNorm: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> g: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

const W = 256u;
var<workgroup> red: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32) {
  var acc = 0.0;
  for (var i = lid; i < p.n; i += W) {
    let v = g[i];
    acc += v * v;
  }
  red[lid] = acc;
  workgroupBarrier();
  for (var s = W / 2u; s > 0u; s >>= 1u) {
    if (lid < s) {
      red[lid] = red[lid] + red[lid + s];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    let norm = sqrt(red[0]);
    out[0] = norm;
    out[1] = select(1.0, min(1.0, p.clipNorm / (norm + 1e-6)), p.clipNorm > 0.0);
  }
}
