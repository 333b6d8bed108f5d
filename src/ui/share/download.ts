import type { Trace } from '../../core/trace.ts';
import { redactSecrets } from '../../share/index.ts';

/** A file name from the title: letters, digits and dashes, so every OS accepts it. */
export function traceFileName(trace: Trace): string {
  const slug = trace.title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${slug || trace.id}.baton.json`;
}

/** Secrets are removed first: an export leaves the tab just as a link does. */
export function traceJson(trace: Trace): string {
  return JSON.stringify(redactSecrets(trace), null, 2);
}

export function downloadTraceJson(trace: Trace): void {
  downloadText(traceFileName(trace), traceJson(trace));
}

/** Saves JSON text as a file through a temporary object URL. */
export function downloadText(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked later: some browsers start the download asynchronously after click().
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
