/**
 * Browser half of `npm run bench:train-tfjs -- --browser`: the trainer update and the graph step
 * on the compute core's WebGPU backend vs the same in TF.js on tfjs-backend-webgpu, on this page's
 * adapter. The driver (bench/train-tfjs/bench.ts) calls window.runTfjsTrainBench(). Also the
 * browser half of `npm run bench:gpu-host -- --browser`: window.runUpdateHost() gives where a
 * WebGPU update's host time goes in this tab (bench/update-host.ts).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-webgpu';
import { chooseBackend, describeAdapter } from '../../../src/gpu/index.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../../../src/policy/index.ts';
import type { Timing } from '../../gpu-common.ts';
import { updateHostSplit } from '../../update-host.ts';
import { measure, type Row } from '../measure.ts';

export interface PageResult {
  adapter: string;
  rows: Row[];
}

const log = (line: string): void => {
  console.log(line);
  const el = document.getElementById('log');
  if (el) el.textContent += `\n${line}`;
};

async function runTfjsTrainBench(sizes: number[], timing: Timing): Promise<PageResult> {
  const choice = await chooseBackend('webgpu');
  if (!choice.adapter) throw new Error('no WebGPU adapter in this browser');
  const adapter = describeAdapter(choice.adapter);
  await tf.setBackend('webgpu');
  await tf.ready();
  log(`adapter: ${adapter}; TF.js backend: ${tf.getBackend()}`);
  const rows: Row[] = [];
  try {
    for (const M of sizes)
      rows.push(
        ...(await measure(tf, choice, 'webgpu (chromium)', priorCheckpoint(DEFAULT_POOL), M, timing, log)),
      );
  } finally {
    choice.ctx?.dispose();
  }
  return { adapter, rows };
}

async function runUpdateHost(
  sizes: number[],
  reps: number,
): Promise<{ adapter: string; rows: Record<string, number>[] }> {
  const choice = await chooseBackend('webgpu');
  if (!choice.adapter) throw new Error('no WebGPU adapter in this browser');
  const rows: Record<string, number>[] = [];
  try {
    for (const M of sizes) rows.push(await updateHostSplit(choice, M, reps));
  } finally {
    choice.ctx?.dispose();
  }
  return { adapter: describeAdapter(choice.adapter), rows };
}

declare global {
  interface Window {
    runTfjsTrainBench: typeof runTfjsTrainBench;
    runUpdateHost: typeof runUpdateHost;
  }
}
window.runTfjsTrainBench = runTfjsTrainBench;
window.runUpdateHost = runUpdateHost;
log('ready');
