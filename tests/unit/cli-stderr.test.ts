/**
 * `baton construct` probes WebGPU (Node's Dawn) for its default `--backend auto`. Where no Wayland
 * runtime folder is set (containers, CI, ssh), the SwiftShader Vulkan driver Dawn loads asked
 * libwayland for a display, which printed "error: XDG_RUNTIME_DIR is invalid or not set in the
 * environment." on stderr, twice per probe.
 * Run as a child process: the line comes from native code, straight to file descriptor 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { generateTask } from '../../src/masbench/index.ts';

const BATON = join(import.meta.dirname, '../../bin/baton.mjs');

it('baton construct on the auto backend, with XDG_RUNTIME_DIR unset, prints no error on stderr', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-stderr-'));
  try {
    writeFileSync(join(dir, 'task.json'), JSON.stringify(generateTask({ axis: 'depth', value: 2, seed: 1 })));
    const env = { ...process.env };
    delete env['XDG_RUNTIME_DIR'];
    const r = spawnSync(
      process.execPath,
      [BATON, 'construct', '--policy', 'prior', '--task', 'task.json', '--seed', '1', '--out', 'c.json'],
      { cwd: dir, env, encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('wrote ');
    expect(r.stderr).not.toMatch(/XDG_RUNTIME_DIR/);
    expect(r.stderr.split('\n').filter((l) => /\berror\b/i.test(l))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 130_000);
