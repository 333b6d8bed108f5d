import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHARED_BASE64, WASM_DIR, buildKernels, bytesModule } from './build.ts';

describe('committed wasm kernels', () => {
  it('kernels.wasm and kernels-bytes.ts are what the AssemblyScript sources compile to', async () => {
    const built = await buildKernels();
    const committed = new Uint8Array(await readFile(join(WASM_DIR, 'kernels.wasm')));
    expect(built.length).toBe(committed.length);
    expect(Buffer.from(built).equals(Buffer.from(committed)), 'run `npm run build:wasm`').toBe(true);
    expect(await readFile(join(WASM_DIR, 'kernels-bytes.ts'), 'utf8')).toBe(bytesModule(built));
    // A SIMD module: it does not validate on an engine without SIMD, and imports its memory.
    const mod = new WebAssembly.Module(new Uint8Array(built));
    expect(WebAssembly.Module.imports(mod)).toEqual([{ module: 'env', name: 'memory', kind: 'memory' }]);
  }, 180_000);

  it('kernels-shared.wasm and kernels-shared-bytes.ts are the shared-memory build of the same sources', async () => {
    const built = await buildKernels(true);
    const committed = new Uint8Array(await readFile(join(WASM_DIR, 'kernels-shared.wasm')));
    expect(Buffer.from(built).equals(Buffer.from(committed)), 'run `npm run build:wasm`').toBe(true);
    expect(await readFile(join(WASM_DIR, 'kernels-shared-bytes.ts'), 'utf8')).toBe(
      bytesModule(built, SHARED_BASE64, 'kernels-shared.wasm'),
    );
    const mod = new WebAssembly.Module(new Uint8Array(built));
    // Its memory import takes only a shared memory.
    const shared = new WebAssembly.Memory({ initial: 2, maximum: 4, shared: true });
    expect(() => new WebAssembly.Instance(mod, { env: { memory: shared } })).not.toThrow();
    expect(
      () => new WebAssembly.Instance(mod, { env: { memory: new WebAssembly.Memory({ initial: 2 }) } }),
    ).toThrow();
  }, 180_000);
});
