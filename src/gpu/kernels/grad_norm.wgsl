// Global gradient norm over the whole parameter-gradient arena (n floats), second level of a
// two-level reduction: grad_norm_partial.wgsl has summed the squares of each block of 4096 floats
// into partial[b]; one workgroup of 256 adds the ⌈n / 4096⌉ block sums (each invocation a strided
// run in increasing b, then a fixed tree: tree.wgsl, or
// tree_sg.wgsl with the same bits) and writes
// out[0] = ‖g‖₂, out[1] = clip scale = min(1, clipNorm / (‖g‖₂ + 1e-6)), or 1 when clipNorm ≤ 0.
// adam.wgsl multiplies every gradient by out[1], so clipping needs no read-back.
//
// Precision: every term is a square (≥ 0), so the f32 sum's relative error is at most its longest
// chain of additions times 2⁻²⁴: 16 per invocation + 8 tree levels + ⌈n / 2²⁰⌉ + 8 tree levels
// + 1 for the square, at most 97 for n ≤ 2²⁶; the norm (a square root) has half of it. Held to the
// CPU backend (an f64 sum) at |Δ‖g‖| ≤ 2⁻¹⁸·‖g‖ (docs/compute-core.md, webgpu/grad-norm.test.ts).
const W = 256u;
const BLOCK = 4096u;

struct P {
  n: u32,
  clipNorm: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(place: Place) {
  let lid = position(place);
  let blocks = (p.n + BLOCK - 1u) / BLOCK;
  var acc = 0.0;
  for (var b = lid; b < blocks; b += W) {
    acc += partial[b];
  }
  let total = treeFold(lid, acc, W, false);
  if (lid == 0u) {
    let norm = sqrt(total);
    out[0] = norm;
    out[1] = select(1.0, min(1.0, p.clipNorm / (norm + 1e-6)), p.clipNorm > 0.0);
  }
}
