/**
 * What a dispatch and a round trip cost on the device, with no arithmetic to speak of: the floor
 * under the construction-policy trainer, whose update is about 160 small dispatches and whose
 * iteration is thousands (docs/benchmarks.md). Each measure runs `N` dispatches of a one-workgroup
 * kernel (64 invocations, one of them adds 1 to a float):
 * - `chain`: all in one compute pass, every dispatch on the same buffer (each waits for the last,
 *   as the trainer's dispatches do);
 * - `apart`: the same count, each dispatch on its own buffer (no dependency between them);
 * - `passes`: one compute pass per dispatch, same buffer;
 * then one submission, up to onSubmittedWorkDone. Also an empty submission's round trip and a
 * 4-byte mapAsync read-back. Wall time per dispatch (median of the repetitions), and the GPU span
 * of `chain` from timestamp queries where the device has them. Then `serial64_unroll{1,4,16}`: the
 * same chain of dispatches, each a 64-long column sum per invocation (col_partial.wgsl's loop)
 * loading 1, 4 or 16 terms before adding them.
 */
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const SHADER = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x == 0u) {
    y[0] = y[0] + 1.0;
  }
}`;

/**
 * A column-sum loop as col_partial.wgsl has it: each of 64 invocations sums 64 floats of its
 * column, loading `unroll` of them before adding them in order.
 */
const serialShader = (unroll: number): string => `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  var s = 0.0;
  for (var r = 0u; r < 64u; r += ${unroll}u) {
${Array.from({ length: unroll }, (_, i) => `    let v${i} = x[(r + ${i}u) * 64u + g.x];`).join('\n')}
${Array.from({ length: unroll }, (_, i) => `    s += v${i};`).join('\n')}
  }
  y[g.x] = y[g.x] + s;
}`;

export async function floorRows(device: GPUDevice, quick: boolean): Promise<Record<string, unknown>> {
  const module = device.createShaderModule({ code: SHADER });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const N = quick ? 64 : 1000;
  const reps = quick ? 3 : 9;
  const bufs = Array.from({ length: N }, () =>
    device.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC }),
  );
  const groups = bufs.map((buffer) =>
    device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer } }],
    }),
  );
  const stamps = device.features.has('timestamp-query');
  const qs = stamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : null;
  const resolve = stamps
    ? device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC })
    : null;
  const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });

  const run = async (kind: 'chain' | 'apart' | 'passes', timed: boolean): Promise<number> => {
    const enc = device.createCommandEncoder();
    if (kind === 'passes') {
      for (let i = 0; i < N; i++) {
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, groups[0] as GPUBindGroup);
        pass.dispatchWorkgroups(1);
        pass.end();
      }
    } else {
      const pass = enc.beginComputePass(
        timed && qs
          ? { timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }
          : {},
      );
      pass.setPipeline(pipeline);
      for (let i = 0; i < N; i++) {
        pass.setBindGroup(0, groups[kind === 'chain' ? 0 : i] as GPUBindGroup);
        pass.dispatchWorkgroups(1);
      }
      pass.end();
    }
    if (timed && qs && resolve) {
      enc.resolveQuerySet(qs, 0, 2, resolve, 0);
      enc.copyBufferToBuffer(resolve, 0, read, 0, 16);
    }
    const t0 = performance.now();
    device.queue.submit([enc.finish()]);
    if (timed && qs) {
      await read.mapAsync(GPUMapMode.READ);
      const t = new BigUint64Array(read.getMappedRange().slice(0));
      read.unmap();
      return Number((t[1] as bigint) - (t[0] as bigint)) / 1e6;
    }
    await device.queue.onSubmittedWorkDone();
    return performance.now() - t0;
  };
  const row: Record<string, unknown> = { dispatches: N, timestamp_query: stamps };
  for (const kind of ['chain', 'apart', 'passes'] as const) {
    await run(kind, false);
    const ts: number[] = [];
    for (let r = 0; r < reps; r++) ts.push(await run(kind, false));
    row[`${kind}_us_per_dispatch`] = (median(ts) * 1000) / N;
  }
  if (stamps) {
    const ts: number[] = [];
    for (let r = 0; r < reps; r++) ts.push(await run('chain', true));
    row.chain_gpu_us_per_dispatch = (median(ts) * 1000) / N;
  }
  const empty: number[] = [];
  for (let r = 0; r < reps * 3; r++) {
    const t0 = performance.now();
    device.queue.submit([device.createCommandEncoder().finish()]);
    await device.queue.onSubmittedWorkDone();
    empty.push(performance.now() - t0);
  }
  row.empty_submit_ms = median(empty);
  const back: number[] = [];
  for (let r = 0; r < reps * 3; r++) {
    const t0 = performance.now();
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(bufs[0] as GPUBuffer, 0, read, 0, 4);
    device.queue.submit([enc.finish()]);
    await read.mapAsync(GPUMapMode.READ, 0, 4);
    read.unmap();
    back.push(performance.now() - t0);
  }
  row.readback_4b_ms = median(back);
  // A 64-long serial sum per invocation, loading 1, 4 or 16 terms before adding: the cost of a
  // chain of loads, which bounds the small kernels' serial loops.
  const xs = device.createBuffer({ size: 64 * 64 * 4, usage: GPUBufferUsage.STORAGE });
  for (const unroll of [1, 4, 16]) {
    const m = device.createShaderModule({ code: serialShader(unroll) });
    const pl = device.createComputePipeline({ layout: 'auto', compute: { module: m, entryPoint: 'main' } });
    const bg = device.createBindGroup({
      layout: pl.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: xs } },
        { binding: 1, resource: { buffer: bufs[0] as GPUBuffer } },
      ],
    });
    const once = async (): Promise<number> => {
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pl);
      pass.setBindGroup(0, bg);
      for (let i = 0; i < N; i++) pass.dispatchWorkgroups(1);
      pass.end();
      const t0 = performance.now();
      device.queue.submit([enc.finish()]);
      await device.queue.onSubmittedWorkDone();
      return performance.now() - t0;
    };
    await once();
    const ts: number[] = [];
    for (let r = 0; r < reps; r++) ts.push(await once());
    row[`serial64_unroll${unroll}_us_per_dispatch`] = (median(ts) * 1000) / N;
  }
  xs.destroy();
  for (const b of [...bufs, read, ...(resolve ? [resolve] : [])]) b.destroy();
  qs?.destroy();
  return row;
}
