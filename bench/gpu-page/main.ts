/**
 * Browser half of `npm run bench:gpu`: times the MLP policy step with Baton (WebGPU, CPU) and TF.js
 * (webgpu, cpu) in this page. The driver (bench/gpu.bench.ts) calls window.runGpuBench().
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-webgpu';
import { CpuModel } from '../../src/gpu/cpu/model.ts';
import { GpuContext, describeAdapter } from '../../src/gpu/webgpu/device.ts';
import { GpuModel } from '../../src/gpu/webgpu/model.ts';
import { chooseBackend } from '../../src/gpu/select.ts';
import type { BenchRow, BenchSize, Timing } from '../gpu-common.ts';
import { ADAM, feed, problem, sizeLabel, tfjsStep, timePair } from '../gpu-common.ts';

export interface PageResult {
  adapter: string;
  autoChoice: string;
  rows: BenchRow[];
  /** |loss_baton − loss_tfjs| on the first step, per row: both compute the same function. */
  lossGaps: number[];
}

const log = (line: string): void => {
  console.log(line);
  const el = document.getElementById('log');
  if (el) el.textContent += `\n${line}`;
};

async function runGpuBench(sizes: BenchSize[], timing: Timing): Promise<PageResult> {
  const ctx = await GpuContext.create();
  if (!ctx) throw new Error('no WebGPU adapter in this browser');
  const adapter = describeAdapter(ctx.adapter);
  const auto = await chooseBackend('auto');
  auto.ctx?.dispose();
  log(`adapter: ${adapter}; auto backend: ${auto.backend} (${auto.reason})`);
  const rows: BenchRow[] = [];
  const lossGaps: number[] = [];
  for (const backend of ['webgpu', 'cpu'] as const) {
    await tf.setBackend(backend);
    await tf.ready();
    for (const s of sizes) {
      const pr = problem(s);
      const model =
        backend === 'webgpu'
          ? new GpuModel(ctx, pr.graph, { loss: pr.loss, optimizer: ADAM, hostSyncEvery: 0 })
          : new CpuModel(pr.graph, { loss: pr.loss, optimizer: ADAM });
      feed(model, pr);
      const tj = tfjsStep(tf, pr);
      const lb = (await model.step()).loss;
      const lt = await tj.step();
      lossGaps.push(Math.abs(lb - lt));
      const [baton, tfjs] = await timePair(
        () => model.step(),
        () => tj.step(),
        timing,
      );
      model.dispose();
      tj.dispose();
      const row = {
        backend: `${backend} (chromium)`,
        size: sizeLabel(s),
        baton_ms: baton,
        tfjs_ms: tfjs,
        ratio: tfjs / baton,
      };
      rows.push(row);
      log(JSON.stringify(row));
    }
  }
  ctx.dispose();
  return { adapter, autoChoice: `${auto.backend}: ${auto.reason}`, rows, lossGaps };
}

declare global {
  interface Window {
    runGpuBench: typeof runGpuBench;
  }
}
window.runGpuBench = runGpuBench;
log('ready');
