// Row gathers and the binary op that reads them, in one dispatch (plan-fuse.ts): gather_rows.wgsl
// (ACCUMULATE = 0) for operand a when GA = 1 and for operand b when GB = 1, then binary.wgsl:
//   ga[i] = ta[ia[i / cols], i % cols]   (0 for an index ≥ rowsA)   for i < na   (GA = 1)
//   gb[i] = tb[ib[i / cols], i % cols]   (0 for an index ≥ rowsB)   for i < nb   (GB = 1)
//   y[i]  = A[i] op B[i]                                            for i < ny
// where A is ga (GA = 1) or ta read as a plain operand (GA = 0), B likewise. Gathers do no
// arithmetic, so y is one add, sub or mul of the values the separate dispatches stored; every
// output the separate dispatches write is written (unused ga / gb are bound to a sink, unused
// index bindings to any buffer). Each invocation reads back only its own element i: same bits.
override OP: u32 = 0u;
override GA: u32 = 0u;
override GB: u32 = 0u;

struct P {
  na: u32,
  nb: u32,
  ny: u32,
  cols: u32,
  rowsA: u32,
  rowsB: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> ta: array<f32>;
@group(0) @binding(2) var<storage, read> ia: array<u32>;
@group(0) @binding(3) var<storage, read_write> ga: array<f32>;
@group(0) @binding(4) var<storage, read> tb: array<f32>;
@group(0) @binding(5) var<storage, read> ib: array<u32>;
@group(0) @binding(6) var<storage, read_write> gb: array<f32>;
@group(0) @binding(7) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= max(max(p.na, p.nb), p.ny)) {
    return;
  }
  let c = i % p.cols;
  var va = 0.0;
  if (GA == 1u) {
    if (i < p.na) {
      let r = ia[i / p.cols];
      if (r < p.rowsA) {
        va = ta[r * p.cols + c];
      }
      ga[i] = va;
    } else if (i < p.ny) {
      va = ga[i];
    }
  } else if (i < p.ny) {
    va = ta[i];
  }
  var vb = 0.0;
  if (GB == 1u) {
    if (i < p.nb) {
      let r = ib[i / p.cols];
      if (r < p.rowsB) {
        vb = tb[r * p.cols + c];
      }
      gb[i] = vb;
    } else if (i < p.ny) {
      vb = gb[i];
    }
  } else if (i < p.ny) {
    vb = tb[i];
  }
  if (i < p.ny) {
    switch OP {
      case 1u: {
        y[i] = va - vb;
      }
      case 2u: {
        y[i] = va * vb;
      }
      default: {
        y[i] = va + vb;
      }
    }
  }
}
