/** The exports of the WebAssembly SIMD kernels (assembly/index.ts) as the host calls them; pointers are byte offsets into the memory, 0 = none. */
export interface Exports {
  heapBase(): number;
  matmulWorkBytes(): number;
  packedBFloats(n: number, k: number): number;
  packBAll(b: number, dst: number, n: number, k: number, transB: number): void;
  matmulRows(
    a: number,
    b: number,
    c: number,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: number,
    transB: number,
    accumulate: number,
    work: number,
    r0: number,
    r1: number,
  ): void;
  matmul(
    a: number,
    b: number,
    c: number,
    batch: number,
    m: number,
    n: number,
    k: number,
    transA: number,
    transB: number,
    accumulate: number,
    work: number,
  ): void;
  sparseRows(
    a: number,
    b: number,
    c: number,
    m: number,
    n: number,
    k: number,
    p0: number,
    p1: number,
    accumulate: number,
  ): void;
  binary(op: number, a: number, b: number, y: number, count: number): void;
  unary(op: number, x: number, y: number, alpha: number, count: number): void;
  unaryGrad(op: number, y: number, gy: number, gx: number, alpha: number, count: number): void;
  binaryGrad(op: number, which: number, a: number, b: number, gy: number, g: number, count: number): void;
  attendRow(
    q: number,
    keys: number,
    values: number,
    out: number,
    probs: number,
    t: number,
    d: number,
    heads: number,
  ): void;
  sumSquares(g: number, len: number): number;
  adam(
    p: number,
    g: number,
    m: number,
    v: number,
    len: number,
    s: number,
    beta1: number,
    beta2: number,
    bc1: number,
    bc2: number,
    lr: number,
    eps: number,
    wd: number,
  ): void;
  biasAct(x: number, bias: number, y: number, cols: number, act: number, count: number): void;
  biasActGrad(
    x: number,
    bias: number,
    gy: number,
    gx: number,
    gb: number,
    cols: number,
    act: number,
    count: number,
  ): void;
  softmax(
    x: number,
    mask: number,
    maskRows: number,
    y: number,
    cols: number,
    log: number,
    rows: number,
  ): void;
  softmaxGrad(
    y: number,
    gy: number,
    mask: number,
    maskRows: number,
    gx: number,
    cols: number,
    log: number,
    rows: number,
  ): void;
  gatherRows(table: number, idx: number, out: number, cols: number, acc: number, count: number): void;
  scatterAddRows(
    src: number,
    idx: number,
    out: number,
    cols: number,
    acc: number,
    count: number,
    outLen: number,
  ): void;
  layerNorm(
    x: number,
    gamma: number,
    beta: number,
    y: number,
    stats: number,
    cols: number,
    eps: number,
    rows: number,
  ): void;
  layerNormGrad(
    x: number,
    gamma: number,
    stats: number,
    gy: number,
    gx: number,
    gGamma: number,
    gBeta: number,
    cols: number,
    rows: number,
  ): void;
  crossEntropy(x: number, t: number, w: number, stats: number, cols: number, rows: number): number;
  crossEntropyGrad(
    x: number,
    t: number,
    w: number,
    stats: number,
    gy: number,
    gx: number,
    cols: number,
    rows: number,
  ): void;
  causalAttention(
    q: number,
    k: number,
    v: number,
    out: number,
    probs: number,
    batch: number,
    seq: number,
    heads: number,
    d: number,
    segments: number,
  ): void;
  causalAttentionGrad(
    q: number,
    k: number,
    v: number,
    out: number,
    probs: number,
    gOut: number,
    gq: number,
    gk: number,
    gv: number,
    batch: number,
    seq: number,
    heads: number,
    d: number,
  ): void;
}
