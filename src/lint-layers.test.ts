import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHITECTURE_DOC,
  MAX_DEPTH,
  layerConfigs,
  parseLayerTable,
  readLayerTable,
  type Layer,
} from '../eslint-layers.js';

/**
 * The layer rules: the table in docs/architecture.md is read by the ESLint config (eslint-layers.js);
 * these tests hold the table to the source tree and to its picture, and lint imports written into
 * files of every layer (virtual paths, `lintText`) to prove the generated rules refuse what the
 * table forbids and let through what it allows.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = readFileSync(ARCHITECTURE_DOC, 'utf8');
const layers = readLayerTable();
const byName = new Map(layers.map((l) => [l.name, l]));

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

const LAYER_RULES = /^no-restricted-(imports|syntax|globals|properties)$/;

/** The layer-rule messages ESLint reports for `code` written in the file `filePath`, with their lines. */
async function complaintsByLine(
  filePath: string,
  code: string,
): Promise<{ line: number; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => LAYER_RULES.test(m.ruleId ?? ''))
    .map((m) => ({ line: m.line, message: m.message }));
}

/** The layer-rule messages ESLint reports for `code` written in the file `filePath`. */
async function complaints(filePath: string, code: string): Promise<string[]> {
  return (await complaintsByLine(filePath, code)).map((c) => c.message);
}

/** A relative import from a file in `fromDir` (a folder under the repo root) to `target`. */
function relative(fromDir: string, target: string): string {
  const from = fromDir.split('/');
  const to = target.split('/');
  let common = 0;
  while (common < from.length && from[common] === to[common]) common++;
  const ups = from.length - common;
  return `${ups === 0 ? './' : '../'.repeat(ups)}${to.slice(common).join('/')}`;
}

/** A file another layer may import from `target`: its front door, or any file. */
const doorOf = (target: Layer): string =>
  target.file ? target.path : `${target.path}/${target.doors?.[0] ?? 'some-module.ts'}`;

/** A file of `l` at `depth` folders below its folder (a file row is its own file). */
const fileIn = (l: Layer, depth: number, test = false): string =>
  l.file
    ? l.path
    : `${l.path}/${Array.from({ length: depth }, (_, i) => `lint-case-${i}/`).join('')}case${test ? '.test' : ''}.ts`;

const dirOf = (file: string): string => file.slice(0, file.lastIndexOf('/'));

describe('the layer table in docs/architecture.md', () => {
  it('names every folder and file of src/, and no layer twice', () => {
    const entries = readdirSync(`${root}src`, { withFileTypes: true });
    const folders = entries.filter((e) => e.isDirectory()).map((e) => `src/${e.name}`);
    const covered = (path: string): boolean => layers.some((l) => l.path === path);
    expect(folders.filter((f) => !covered(f))).toEqual([]);
    const files = entries.filter((e) => e.isFile() && /\.(ts|tsx)$/.test(e.name)).map((e) => `src/${e.name}`);
    // Files right in src/ are the app's entry (a row of its own) or checks of the repository itself.
    expect(files.filter((f) => !covered(f) && !f.endsWith('.test.ts'))).toEqual([]);
    expect(new Set(layers.map((l) => l.name)).size).toBe(layers.length);
  });

  it('marks exactly the layers that have no folder yet as coming', () => {
    for (const l of layers)
      expect({ layer: l.name, exists: existsSync(`${root}${l.path}`) }).toEqual({
        layer: l.name,
        exists: !l.coming,
      });
  });

  it('leaves no source file deeper than the generated rules reach', () => {
    const deepest: string[] = [];
    const walk = (dir: string, depth: number): void => {
      for (const e of readdirSync(`${root}${dir}`, { withFileTypes: true })) {
        const path = `${dir}/${e.name}`;
        if (layers.some((l) => l.path === path && !l.file)) continue;
        if (e.isDirectory()) walk(path, depth + 1);
        else if (depth >= MAX_DEPTH) deepest.push(path);
      }
    };
    for (const l of layers) if (!l.file && !l.coming) walk(l.path, 0);
    expect(deepest).toEqual([]);
  });

  it('agrees with the floors picture: every import goes down a floor (on floor 0, answers reads core)', () => {
    const section = doc.slice(doc.indexOf('\n## Floors\n'));
    const picture = section.slice(
      section.indexOf('```') + 3,
      section.indexOf('```', section.indexOf('```') + 3),
    );
    const floorOf = new Map<string, number>();
    for (const line of picture.split('\n')) {
      const m = /^\s*floor (\d+)\s+(.*)$/.exec(line);
      if (!m) continue;
      for (const word of m[2]!.match(/[\w/.]+/g) ?? []) {
        if (!byName.has(word)) continue;
        expect(floorOf.has(word), `${word} is drawn on two floors`).toBe(false);
        floorOf.set(word, Number(m[1]));
      }
    }
    expect([...floorOf.keys()].sort()).toEqual(layers.map((l) => l.name).sort());
    for (const l of layers)
      for (const t of l.mayImport) {
        const [from, to] = [floorOf.get(l.name)!, floorOf.get(t)!];
        expect(to < from || from === 0, `${l.name} (floor ${from}) imports ${t} (floor ${to})`).toBe(true);
      }
  });

  it('is the source of the lint rules: a malformed table stops ESLint from loading', () => {
    expect(parseLayerTable(doc)).toEqual(layers);
    const typo = doc.replace('| `ui` | `src/ui/` | `core`,', '| `ui` | `src/ui/` | `kore`,');
    expect(typo).not.toBe(doc);
    expect(() => parseLayerTable(typo)).toThrow(/ui may import "kore", which is not a layer/);
    expect(() => parseLayerTable(doc.replace('## Who may import what', '## Imports'))).toThrow(/no "## Who/);
  });

  it('is what ESLint runs: the config of a file holds the rules generated for its layer', async () => {
    const generated = layerConfigs(layers).find((c) => c.name === 'baton/layers/ui/depth-1');
    const running = (await eslint.calculateConfigForFile('src/ui/trace/Case.tsx')) as {
      rules: Record<string, unknown>;
    };
    expect(generated).toBeDefined();
    // ESLint keeps a rule as [severity, ...options], the severity as a number.
    const options = (rule: unknown): unknown => (rule as unknown[]).slice(1);
    expect(options(running.rules['no-restricted-imports'])).toEqual(
      options(generated!.rules!['no-restricted-imports']),
    );
  });
});

describe('the lint rules generated from the table', () => {
  it('refuse every import the table forbids and allow every one it allows, from every layer, statically and dynamically', async () => {
    const mismatches: string[] = [];
    for (const from of layers)
      for (const depth of from.file ? [0] : [0, 1])
        for (const test of from.file ? [false] : [false, true]) {
          const file = fileIn(from, depth, test);
          const allowed = test ? [...from.mayImport, ...from.testsMayImport] : from.mayImport;
          const targets = layers.filter((to) => to !== from);
          // One file per case, two lines per target: a static import on line 2i+1, a dynamic one below.
          const specs = targets.map((to) => relative(dirOf(file), doorOf(to)));
          const code = specs
            .map((spec, i) => `import '${spec}';\nexport const later${i} = () => import('${spec}');\n`)
            .join('');
          const said = await complaintsByLine(file, code);
          targets.forEach((to, i) => {
            const lines = [2 * i + 1, 2 * i + 2];
            const forbidden = !allowed.includes(to.name);
            const messages = said.filter((c) => lines.includes(c.line)).map((c) => c.message);
            const right = forbidden
              ? messages.length === 2 && messages.every((m) => m.includes(`may not import ${to.name}:`))
              : messages.length === 0;
            if (!right)
              mismatches.push(
                `${file} → ${specs[i]}: ${forbidden ? 'forbidden' : 'allowed'}, got ${JSON.stringify(messages)}`,
              );
          });
        }
    expect(mismatches).toEqual([]);
  });

  it('keep the UI on the store and pure layers', async () => {
    const ui = 'src/ui/trace/Case.tsx';
    for (const spec of [
      '../../policy/index.ts',
      '../../executor/index.ts',
      '../../gpu/index.ts',
      '../../workers/index.ts',
      '../../store/services/files.ts',
      '../../importers/index.ts',
    ])
      expect(await complaints(ui, `import '${spec}';`), spec).toHaveLength(1);
    for (const spec of [
      '../../store/store.ts',
      '../../store/slices/viewer.ts',
      '../../core/trace.ts',
      '../../answers/index.ts',
      '../../design/validate.ts',
      '../../view/layout.ts',
      '../../share/index.ts',
      '../common/format.ts',
    ])
      expect(await complaints(ui, `import '${spec}';`), spec).toEqual([]);
  });

  it('let other layers into gpu, answers, masbench, importers, share, policy and workers only by the front door', async () => {
    const policy = 'src/policy/case.ts';
    expect(await complaints(policy, "import { compile } from '../gpu/index.ts';")).toEqual([]);
    expect(await complaints(policy, "import { CpuModel } from '../gpu/cpu/model.ts';")).toEqual([
      expect.stringContaining('only through its front door: src/gpu/index.ts or src/gpu/node-gpu.ts'),
    ]);
    expect(await complaints(policy, "export const m = () => import('../gpu/webgpu/model.ts');")).toHaveLength(
      1,
    );
    expect(await complaints('src/gpu/case.ts', "import './webgpu/model.ts';")).toEqual([]);
    expect(await complaints('src/cli/commands/case.ts', "import '../../gpu/node-gpu.ts';")).toEqual([]);
    for (const [file, spec] of [
      ['src/masbench/case.ts', '../answers/check.ts'],
      ['src/executor/case.ts', '../masbench/generate.ts'],
      ['src/store/services/case.ts', '../../importers/html.ts'],
      ['src/store/slices/case.ts', '../../share/link.ts'],
      ['src/store/services/case.ts', '../../policy/roles.ts'],
      ['src/store/services/case.ts', '../../workers/layout.client.ts'],
      ['src/store/services/case.ts', '../../executor/llm/client.ts'],
    ] as const)
      expect(await complaints(file, `import '${spec}';`), `${file} → ${spec}`).toEqual([
        expect.stringContaining('only through its front door'),
      ]);
  });

  it('tell a nested layer from the layer around it', async () => {
    // store/services may not read the store's state; its tests may.
    expect(await complaints('src/store/services/case.ts', "import '../slices/build.ts';")).toEqual([
      expect.stringContaining('store/services may not import store:'),
    ]);
    expect(await complaints('src/store/services/case.ts', "import '../store.ts';")).toHaveLength(1);
    expect(await complaints('src/store/services/case.test.ts', "import '../slices/library.ts';")).toEqual([]);
    // Slices call services; only services call workers (slice tests may use the fakes).
    expect(await complaints('src/store/slices/case.ts', "import '../services/layout.ts';")).toEqual([]);
    expect(await complaints('src/store/case.ts', "import './services/layout.ts';")).toEqual([]);
    expect(await complaints('src/store/slices/case.ts', "import '../../workers/index.ts';")).toHaveLength(1);
    expect(await complaints('src/store/slices/case.test.ts', "import '../../workers/index.ts';")).toEqual([]);
    // The executor reaches its LLM clients by their front door; they import only core.
    expect(await complaints('src/executor/sim/case.ts', "import '../llm/index.ts';")).toEqual([]);
    expect(await complaints('src/executor/case.ts', "import './llm/http.ts';")).toHaveLength(1);
    expect(await complaints('src/executor/llm/case.ts', "import '../run.ts';")).toEqual([
      expect.stringContaining('executor/llm may not import executor:'),
    ]);
  });

  it('refuse paths that are in no layer, and paths that leave src/ to come back, but not files outside src/', async () => {
    expect(await complaints('src/ui/case.ts', "import '../nowhere/thing.ts';")).toEqual([
      expect.stringContaining('in no layer'),
    ]);
    expect(await complaints('src/ui/case.ts', "import '../../src/gpu/index.ts';")).toEqual([
      expect.stringContaining('without leaving it'),
    ]);
    expect(
      await complaints('src/executor/case.test.ts', "import '../../tests/server/openai-server.ts';"),
    ).toEqual([]);
  });

  it('hold the rows of layers that have not landed yet', async () => {
    expect(await complaints('src/train/case.ts', "import '../policy/index.ts';")).toEqual([]);
    expect(await complaints('src/train/case.ts', "import '../store/store.ts';")).toHaveLength(1);
    expect(await complaints('src/train/case.ts', 'export const r = Math.random();')).toHaveLength(1);
    expect(
      await complaints('src/orchestrator/case.ts', "export const f = () => fetch('/models/a.onnx');"),
    ).toEqual([]);
  });

  it('keep effects where the table puts them', async () => {
    const effects = [
      ['src/view/case.ts', 'export const r = Math.random();', 1],
      ['src/view/case.test.ts', 'export const r = Math.random();', 0],
      ['src/masbench/case.ts', 'setTimeout(() => {}, 1);', 1],
      ['src/answers/case.ts', "export const f = () => fetch('/x');", 1],
      ['src/ui/case.ts', "export const f = () => fetch('/x');", 1],
      ['src/executor/case.ts', "export const f = () => fetch('/x');", 1],
      ['src/executor/llm/case.ts', "export const f = () => fetch('/x');", 0],
      ['src/store/services/case.ts', "export const f = () => fetch('/x');", 0],
      ['src/store/services/case.ts', 'export const w = new Worker("x.js");', 1],
      ['src/store/services/case.ts', 'export const send = (p: MessagePort) => p.postMessage(1);', 1],
      ['src/ui/case.ts', 'export const c = new MessageChannel();', 1],
      ['src/workers/case.ts', 'export const send = (p: MessagePort) => p.postMessage(1);', 0],
      ['src/workers/case.ts', 'export const w = new Worker("x.js");', 0],
      ['src/policy/case.ts', 'export const g = navigator.gpu;', 1],
      ['src/gpu/webgpu/case.ts', 'export const g = navigator.gpu;', 0],
    ] as const;
    for (const [file, code, count] of effects)
      expect(await complaints(file, code), `${file}: ${code}`).toHaveLength(count);
  });
});
