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
  | { type: 'probed'; backend: string; reason: string; ms: number | null }
  | { type: 'error'; message: string };

const log = (line: string): void => {
  console.log(line);
  const el = document.getElementById('log');
  if (el) el.textContent += `\n${line}`;
};

const spawn = (): Worker => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });

/**
 * ms per iteration of one backend (or of the one `auto` picks) in a worker of its own, cut off (null)
 * after `limitMs`; with the backend that ran.
 */
function probe(
  backend: 'cpu' | 'auto',
  iterations: number,
  limitMs: number,
): Promise<{ backend: string; reason: string; ms: number | null }> {
  const worker = spawn();
  return new Promise<{ backend: string; reason: string; ms: number | null }>((resolve) => {
    const timer = setTimeout(() => {
      log(`probe: ${backend} did not finish ${iterations + 1} iterations in ${limitMs / 1000} s; stopped`);
      resolve({ backend, reason: 'cut off', ms: null });
    }, limitMs);
    worker.onmessage = (e: MessageEvent<Message>) => {
      clearTimeout(timer);
      const m = e.data;
      if (m.type === 'error') log(`probe: ${backend} failed: ${m.message}`);
      resolve(m.type === 'probed' ? m : { backend, reason: 'failed', ms: null });
    };
    worker.postMessage({ type: 'probe', backend, iterations } satisfies WorkerRequest);
  }).finally(() => worker.terminate());
}

async function runTrainBench(o: StudyOptions): Promise<StudyResult> {
  const probes: { backend: string; msPerIteration: number | null }[] = [];
  let options = o;
  if (o.backend === 'auto' && o.probeIterations > 0) {
    // The TypeScript backend against the one `auto` picks (the wasm backend beside SwiftShader), each
    // in a worker of its own, in the same run; the study trains on the faster.
    const ts = await probe('cpu', o.probeIterations, o.probeLimitMs);
    const auto = await probe('auto', o.probeIterations, o.probeLimitMs);
    probes.push({ backend: 'cpu', msPerIteration: ts.ms });
    if (auto.backend !== 'cpu') probes.push({ backend: `${auto.backend} (auto)`, msPerIteration: auto.ms });
    log(
      `probe: ${probes.map((p) => `${p.backend} ${p.msPerIteration === null ? 'n/a' : `${p.msPerIteration.toFixed(0)} ms/iteration`}`).join(', ')}`,
    );
    const pick = auto.ms !== null && auto.ms <= (ts.ms ?? Infinity) ? auto.backend : 'cpu';
    options = { ...o, backend: pick as StudyOptions['backend'] };
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
