// The reduction (op 0 sum, 1 mean, 2 max) of the `cols` floats of x from offset o, by one
// invocation in increasing column order: one loop for reduce.wgsl and reduce_binary.wgsl (a kernel
// that takes this file binds its input as x).
fn reduceRow(o: u32, cols: u32, op: u32) -> f32 {
  var acc = select(0.0, -3.0e38, op == 2u);
  // Four columns at a time, loads first, then in increasing c (the same bits as one at a time): a
  // real GPU waits on memory once per four (matmul.wgsl).
  var c = 0u;
  for (; c + 4u <= cols; c += 4u) {
    let v = vec4f(x[o + c], x[o + c + 1u], x[o + c + 2u], x[o + c + 3u]);
    if (op == 2u) {
      acc = max(max(max(max(acc, v.x), v.y), v.z), v.w);
    } else {
      acc += v.x;
      acc += v.y;
      acc += v.z;
      acc += v.w;
    }
  }
  for (; c < cols; c++) {
    if (op == 2u) {
      acc = max(acc, x[o + c]);
    } else {
      acc += x[o + c];
    }
  }
  return select(acc, acc / f32(cols), op == 1u);
}
