// Shared by scatter_partial.wgsl and scatter_rows.wgsl (kernels.ts prepends it): the sum of column c
// of src (p.cols columns) over the rows sources[start … end − 1], from zero in increasing position.
// Four sources at a time: their indices, then their values, then the adds in increasing j (the
// same bits as one at a time); a real GPU waits on memory twice per four sources, not per source.
fn chunkSum(start: u32, end: u32, c: u32) -> f32 {
  var s = 0.0;
  var j = start;
  for (; j + 4u <= end; j += 4u) {
    let i0 = sources[j];
    let i1 = sources[j + 1u];
    let i2 = sources[j + 2u];
    let i3 = sources[j + 3u];
    let v0 = src[i0 * p.cols + c];
    let v1 = src[i1 * p.cols + c];
    let v2 = src[i2 * p.cols + c];
    let v3 = src[i3 * p.cols + c];
    s += v0;
    s += v1;
    s += v2;
    s += v3;
  }
  for (; j < end; j++) {
    s += src[sources[j] * p.cols + c];
  }
  return s;
}
