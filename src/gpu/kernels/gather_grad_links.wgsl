// First pass of gather_rows' backward (the gradient of an embedding lookup): for each index i,
// links[2i] = the next i' > i with idx[i'] = idx[i] (count when none) and links[2i + 1] = 1 when i
// is the first occurrence of its row. gather_grad_sum.wgsl then walks each chain once. O(count²)
// comparisons in all, instead of scatter_add_rows' O(tableRows·cols·count) when the table is large
// (a vocabulary) and every index is read by every table float.
struct P {
  count: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read_write> links: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= p.count) {
    return;
  }
  let r = idx[i];
  var first = 1u;
  for (var j = 0u; j < i; j++) {
    if (idx[j] == r) {
      first = 0u;
      break;
    }
  }
  var next = p.count;
  for (var j = i + 1u; j < p.count; j++) {
    if (idx[j] == r) {
      next = j;
      break;
    }
  }
  links[2u * i] = next;
  links[2u * i + 1u] = first;
}
