/** The bench page's training worker: runs the study (or a backend probe) off the main thread. */
import { probeBackend, runStudy, type StudyOptions } from './study.ts';

export type WorkerRequest =
  | { type: 'study'; options: StudyOptions; probes: { backend: string; msPerIteration: number | null }[] }
  | { type: 'probe'; backend: 'cpu' | 'webgpu' | 'auto'; iterations: number };

const fail = (err: unknown): void =>
  self.postMessage({
    type: 'error',
    message: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err),
  });

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const m = e.data;
  if (m.type === 'probe')
    probeBackend(m.backend, m.iterations).then((r) => self.postMessage({ type: 'probed', ...r }), fail);
  else
    runStudy(m.options, (line) => self.postMessage({ type: 'progress', line }), m.probes).then(
      (result) => self.postMessage({ type: 'done', result }),
      fail,
    );
};
