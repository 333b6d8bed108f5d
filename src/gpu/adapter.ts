import type { AdapterReport } from './webgpu/device.ts';

/** One-line description for logs and the UI, e.g. "google swiftshader (software)". */
export function describeAdapter(r: AdapterReport): string {
  const name = [r.vendor, r.architecture, r.device || r.description].filter((s) => s !== '').join(' ');
  return `${name || 'unknown adapter'}${r.software ? ' (software)' : ''}`;
}
