import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  formatReport,
  htmlScripts,
  initialFiles,
  lazyChunks,
  report,
  staticClosure,
  type Manifest,
} from './check-size.mjs';

/**
 * A build like the app's: the entry imports React and a shared chunk; the trace route (lazy) imports
 * the graph library and the shared chunk, and loads markdown lazily itself; the build route is
 * lazy; a lazy GPU module imports the entry back (a cycle).
 */
const manifest: Manifest = {
  'index.html': {
    file: 'assets/index-a.js',
    src: 'index.html',
    isEntry: true,
    imports: ['_react-b.js', '_shared-c.js'],
    dynamicImports: ['src/ui/app/TraceRoute.tsx', 'src/ui/construction/BuildPage.tsx', 'src/gpu/model.ts'],
    css: ['assets/index-a.css'],
  },
  '_react-b.js': { file: 'assets/react-b.js', name: 'react' },
  '_shared-c.js': { file: 'assets/shared-c.js', name: 'shared', imports: ['_react-b.js'] },
  '_flow-d.js': { file: 'assets/flow-d.js', name: 'flow', imports: ['_react-b.js'] },
  'src/ui/app/TraceRoute.tsx': {
    file: 'assets/TraceRoute-e.js',
    src: 'src/ui/app/TraceRoute.tsx',
    isDynamicEntry: true,
    imports: ['_flow-d.js', '_shared-c.js', '_react-b.js'],
    dynamicImports: ['src/ui/markdown/MarkdownRenderer.tsx'],
  },
  'src/ui/markdown/MarkdownRenderer.tsx': {
    file: 'assets/MarkdownRenderer-f.js',
    src: 'src/ui/markdown/MarkdownRenderer.tsx',
    isDynamicEntry: true,
    imports: ['_react-b.js'],
  },
  'src/ui/construction/BuildPage.tsx': {
    file: 'assets/BuildPage-g.js',
    src: 'src/ui/construction/BuildPage.tsx',
    isDynamicEntry: true,
    imports: ['_flow-d.js'],
  },
  'src/gpu/model.ts': {
    file: 'assets/model-h.js',
    src: 'src/gpu/model.ts',
    isDynamicEntry: true,
    imports: ['index.html'],
  },
};

/** Gzip sizes in bytes, made up: the entry's closure is 60 + 130 + 10 = 200 kB. */
const SIZES: Record<string, number> = {
  'assets/index-a.js': 60_000,
  'assets/react-b.js': 130_000,
  'assets/shared-c.js': 10_000,
  'assets/flow-d.js': 55_000,
  'assets/TraceRoute-e.js': 20_000,
  'assets/MarkdownRenderer-f.js': 110_000,
  'assets/BuildPage-g.js': 15_000,
  'assets/model-h.js': 9_000,
};
const sizeOf = (file: string): number => {
  const size = SIZES[file];
  if (size === undefined) throw new Error(`no size for ${file}`);
  return size;
};

const HTML = `<!doctype html><html><head>
<script type="module" crossorigin src="./assets/index-a.js"></script>
<link rel="modulepreload" crossorigin href="./assets/react-b.js">
<link rel="stylesheet" crossorigin href="./assets/index-a.css">
</head></html>`;

describe('what the first page loads', () => {
  it('follows static imports recursively, once each, and never dynamic ones', () => {
    expect(staticClosure(manifest, 'index.html')).toEqual(['index.html', '_react-b.js', '_shared-c.js']);
    // The lazy GPU module imports the entry back: the cycle ends.
    expect(staticClosure(manifest, 'src/gpu/model.ts')).toEqual([
      'src/gpu/model.ts',
      'index.html',
      '_react-b.js',
      '_shared-c.js',
    ]);
  });

  it('fails loudly on an import the manifest does not describe', () => {
    const broken: Manifest = {
      'index.html': { file: 'a.js', src: 'index.html', isEntry: true, imports: ['_x'] },
    };
    expect(() => staticClosure(broken, 'index.html')).toThrow(/"_x"/);
  });

  it('finds lazy chunks at any depth', () => {
    expect(lazyChunks(manifest, 'index.html')).toEqual([
      'src/ui/app/TraceRoute.tsx',
      'src/ui/construction/BuildPage.tsx',
      'src/gpu/model.ts',
      'src/ui/markdown/MarkdownRenderer.tsx',
    ]);
  });

  it("counts index.html's scripts and module preloads, not its stylesheets", () => {
    expect(htmlScripts(HTML)).toEqual(['assets/index-a.js', 'assets/react-b.js']);
    const extra = HTML.replace('</head>', '<script type="module" src="/assets/extra.js"></script></head>');
    expect(initialFiles(manifest, extra)).toEqual([
      'assets/index-a.js',
      'assets/react-b.js',
      'assets/shared-c.js',
      'assets/extra.js',
    ]);
  });
});

describe('the report', () => {
  const routes = [
    {
      route: '#/trace',
      modules: ['src/ui/app/TraceRoute.tsx', 'src/ui/markdown/MarkdownRenderer.tsx'],
    },
    { route: '#/build', modules: ['src/ui/construction/BuildPage.tsx'] },
    { route: '#/settings', modules: ['src/ui/settings/SettingsPage.tsx'] },
  ];

  it('sums the initial files and passes at or under the budget', () => {
    const r = report(manifest, HTML, sizeOf, 200, routes);
    expect(r.initialBytes).toBe(200_000);
    expect(r.ok).toBe(true);
  });

  it('fails one byte over the budget, with a message that says by how much', () => {
    const r = report(manifest, HTML, (f) => sizeOf(f) + (f === 'assets/index-a.js' ? 1 : 0), 200, routes);
    expect(r.ok).toBe(false);
    expect(formatReport(r).at(-1)).toMatch(
      /^FAIL: the gallery loads 200\.00 kB .* over the 200\.00 kB budget by 0\.00 kB/,
    );
  });

  it('prices each route by what it adds: shared chunks already loaded count zero', () => {
    const r = report(manifest, HTML, sizeOf, 250, routes);
    expect(r.routes).toEqual([
      {
        label: '#/trace',
        files: ['assets/TraceRoute-e.js', 'assets/flow-d.js', 'assets/MarkdownRenderer-f.js'],
        bytes: 185_000,
      },
      { label: '#/build', files: ['assets/BuildPage-g.js', 'assets/flow-d.js'], bytes: 70_000 },
    ]);
    // The markdown renderer is in the trace row; the GPU module is not in any route's.
    expect(r.others).toEqual([{ label: 'src/gpu/model.ts', files: ['assets/model-h.js'], bytes: 9_000 }]);
    expect(r.notLazy).toEqual(['#/settings']);
    expect(formatReport(r).join('\n')).toContain(
      'Not loaded lazily (part of the initial load, or renamed): #/settings',
    );
  });

  it('notices a route that became a static import: it joins the initial load', () => {
    const eager: Manifest = structuredClone(manifest);
    const entry = eager['index.html']!;
    entry.imports = [...(entry.imports ?? []), 'src/ui/construction/BuildPage.tsx'];
    entry.dynamicImports = entry.dynamicImports?.filter((k) => k !== 'src/ui/construction/BuildPage.tsx');
    const r = report(eager, HTML, sizeOf, 250, routes);
    expect(r.initial).toContain('assets/flow-d.js');
    expect(r.initialBytes).toBe(270_000);
    expect(r.ok).toBe(false);
    expect(r.notLazy).toContain('#/build');
  });
});

describe('the command', () => {
  const dist = mkdtempSync(join(tmpdir(), 'check-size-'));
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  /** A dist/ with the manifest above and files of random bytes (gzip cannot shrink them). */
  function writeDist(): Record<string, number> {
    mkdirSync(join(dist, '.vite'), { recursive: true });
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, '.vite/manifest.json'), JSON.stringify(manifest));
    writeFileSync(join(dist, 'index.html'), HTML);
    const gz: Record<string, number> = {};
    let seed = 1;
    for (const file of Object.keys(SIZES)) {
      const bytes = Buffer.alloc(4000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      writeFileSync(join(dist, file), bytes);
      gz[file] = gzipSync(bytes).length;
    }
    return gz;
  }

  const run = (dir: string, ...args: string[]): { status: number; out: string } => {
    try {
      const out = execFileSync(process.execPath, ['scripts/check-size.mjs', '--dist', dir, ...args], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
      return { status: 0, out };
    } catch (e) {
      const err = e as { status: number; stdout: string; stderr: string };
      return { status: err.status, out: err.stdout + err.stderr };
    }
  };

  it('reads dist/, gzips the files and exits 1 only above the budget', () => {
    const gz = writeDist();
    const initial = gz['assets/index-a.js']! + gz['assets/react-b.js']! + gz['assets/shared-c.js']!;
    const pass = run(dist, '--budget', String(initial / 1000));
    expect(pass.status).toBe(0);
    expect(pass.out).toContain(`Gallery (#/) initial JavaScript: ${(initial / 1000).toFixed(2)} kB gzip`);
    expect(pass.out).toMatch(/#\/trace +\d+\.\d\d kB/);
    const fail = run(dist, '--budget', String((initial - 1) / 1000));
    expect(fail.status).toBe(1);
    expect(fail.out).toContain('FAIL: the gallery loads');
  });

  it('says how to get a manifest when there is none', () => {
    const empty = mkdtempSync(join(tmpdir(), 'check-size-empty-'));
    try {
      const r = run(empty);
      expect(r.status).toBe(1);
      expect(r.out).toMatch(/manifest\.json is missing: run `vite build` first/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
