/**
 * `baton gpu info` on this machine's adapter (SwiftShader without a GPU): the adapter report, the
 * subgroup twins' check (a software adapter is not checked) and the backend with its reason;
 * forced CPU-side backends report no adapter; bad arguments are usage errors.
 */
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../command.ts';
import { gpuCommand } from './gpu.ts';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: process.cwd() };
  const code = await gpuCommand.run(args, io);
  return { code, out, err };
}

describe('baton gpu info', () => {
  it('reports the adapter, the subgroup check and the forced WebGPU backend', async () => {
    const r = await run(['info', '--backend', 'webgpu']);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    const line = (key: string): string | undefined => r.out.find((l) => l.startsWith(`${key}:`));
    expect(line('software')).toBe('software:          true');
    expect(line('features')).toContain('subgroups');
    expect(line('subgroup twins')).toBe(
      'subgroup twins:    not checked: a software adapter (CI checks SwiftShader)',
    );
    expect(line('backend')).toMatch(/^backend: {11}webgpu \(WebGPU forced on .*swiftshader.*\)$/);
  });

  it('reports no adapter and no subgroup check for a forced CPU-side backend', async () => {
    const r = await run(['info', '--backend', 'cpu']);
    expect(r.code).toBe(0);
    expect(r.out).toEqual(['backend:           cpu (CPU backend forced)']);
  });

  it('answers bad arguments with the usage', async () => {
    const r = await run(['info', '--backend', 'tpu']);
    expect(r.code).toBe(2);
    expect(r.err[0]).toBe('baton gpu: --backend must be cpu, wasm, webgpu or auto, got "tpu"');
    expect(r.err[1]).toMatch(/^Usage: baton gpu info/);
  });
});
