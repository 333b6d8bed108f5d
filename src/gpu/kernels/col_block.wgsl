// Shared by col_partial.wgsl and col_rows.wgsl (kernels.ts prepends it): the sum of column c of x
// (p.cols columns) over rows r0 … end − 1, from zero in increasing r. Four rows at a time, loads
// first and adds in increasing r (the same bits as one at a time): a real GPU waits on memory once
// per four rows (matmul_block.wgsl).
fn colBlockSum(r0: u32, end: u32, c: u32) -> f32 {
  var s = 0.0;
  var r = r0;
  for (; r + 4u <= end; r += 4u) {
    let x0 = x[r * p.cols + c];
    let x1 = x[(r + 1u) * p.cols + c];
    let x2 = x[(r + 2u) * p.cols + c];
    let x3 = x[(r + 3u) * p.cols + c];
    s += x0;
    s += x1;
    s += x2;
    s += x3;
  }
  for (; r < end; r++) {
    s += x[r * p.cols + c];
  }
  return s;
}
