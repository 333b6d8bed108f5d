/**
 * Page half of `npm run bench:train`: starts the training study in a Web Worker (never on the main
 * thread, as the Train page does) and resolves with its result. The driver
 * (bench/train-browser.bench.ts) calls window.runTrainBench().
 */
import type { StudyOptions, StudyResult } from './study.ts';
import type { WorkerRequest } from './worker.ts';

type Message =
  | { type: 'progress'; line: string }
  | { type: 'done'; result: StudyResult }
  | { type: 'probed'; ms: number | null }
  | { type: 'error'; message: string };

const log = (line: string): void => {
  console.log(line);
  const el = document.getElementById('log');
  if (el) el.textContent += `\n${line}`;
};

const spawn = (): Worker => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });

/** ms per iteration of one backend in a worker of its own, cut off (null) after `limitMs`. */
function probe(backend: 'cpu' | 'webgpu', iterations: number, limitMs: number): Promise<number | null> {
  const worker = spawn();
  return new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      log(`probe: ${backend} did not finish ${iterations + 1} iterations in ${limitMs / 1000} s; stopped`);
      resolve(null);
    }, limitMs);
    worker.onmessage = (e: MessageEvent<Message>) => {
      clearTimeout(timer);
      const m = e.data;
      if (m.type === 'error') log(`probe: ${backend} failed: ${m.message}`);
      resolve(m.type === 'probed' ? m.ms : null);
    };
    worker.postMessage({ type: 'probe', backend, iterations } satisfies WorkerRequest);
  }).finally(() => worker.terminate());
}

async function runTrainBench(o: StudyOptions): Promise<StudyResult> {
  const probes: { backend: string; msPerIteration: number | null }[] = [];
  let options = o;
  if (o.backend === 'auto' && o.probeIterations > 0) {
    for (const backend of ['cpu', 'webgpu'] as const)
      probes.push({ backend, msPerIteration: await probe(backend, o.probeIterations, o.probeLimitMs) });
    log(
      `probe: ${probes.map((p) => `${p.backend} ${p.msPerIteration === null ? 'n/a' : `${p.msPerIteration.toFixed(0)} ms/iteration`}`).join(', ')}`,
    );
    const [cpu, gpu] = probes.map((p) => p.msPerIteration ?? Infinity) as [number, number];
    // WebGPU only where it is not slower than the CPU.
    options = { ...o, backend: gpu <= cpu ? 'webgpu' : 'cpu' };
  }
  const worker = spawn();
  return new Promise<StudyResult>((resolve, reject) => {
    worker.onmessage = (e: MessageEvent<Message>) => {
      const m = e.data;
      if (m.type === 'progress') log(m.line);
      else if (m.type === 'done') resolve(m.result);
      else if (m.type === 'error') reject(new Error(m.message));
    };
    worker.onerror = (e) => reject(new Error(e.message));
    worker.postMessage({ type: 'study', options, probes } satisfies WorkerRequest);
  }).finally(() => worker.terminate());
}

declare global {
  interface Window {
    runTrainBench: typeof runTrainBench;
  }
}
window.runTrainBench = runTrainBench;
log('ready');
