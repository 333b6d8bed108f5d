/**
 * The layer rules of `src/`, read from the table "Who may import what" in docs/architecture.md and
 * turned into ESLint config objects. The table is the single source: eslint.config.js calls
 * `layerConfigs(readLayerTable())`, so the rules cannot say anything the document does not.
 *
 * ESLint's `no-restricted-imports` sees an import's text, not the file it resolves to. So the rules
 * are generated per layer and per folder depth: from a file `d` folders below `src/`, an import that
 * starts with `../` d times lands in `src/` and names its target layer next; imports with fewer `../`
 * stay inside the layer, or land in a folder whose nested layers (such as `store/services` inside
 * `store`) the rules name too. Dynamic `import()` is checked with the same patterns through
 * `no-restricted-syntax`.
 */
import { readFileSync } from 'node:fs';

export const ARCHITECTURE_DOC = new URL('./docs/architecture.md', import.meta.url);
const TABLE_HEADING = '## Who may import what';

/** Folders a file may sit below its layer's folder; deeper files would escape the rules (tested). */
export const MAX_DEPTH = 4;

const SOURCE = '{ts,tsx,mts,cts,js,jsx,mjs,cjs}';
const TEST = '*.test.{ts,tsx}';

/**
 * @typedef {object} Layer
 * @property {string} name        e.g. `store/services`
 * @property {string} path        e.g. `src/store/services`, or a file: `src/main.tsx`
 * @property {boolean} file       the row is one file, not a folder
 * @property {boolean} coming     the layer is planned; its rules wait for its files
 * @property {string[]} mayImport other layers its code may import
 * @property {string[]} testsMayImport other layers its tests (`*.test.ts(x)`) may import besides
 * @property {string[] | null} doors the files other layers may import (null: any file)
 * @property {string} effects     the effects column as written
 * @property {boolean} pure       effects "none": no fetch, timers, DOM, storage or Math.random
 */

const COLUMNS = ['layer', 'folder', 'may import', 'its tests may also import', 'front door', 'effects'];

/** The backticked words of a cell. */
const codes = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** A list cell: backticked names, or a dash for none. */
function names(cell, where) {
  const list = codes(cell);
  if (list.length === 0 && !/^(—|-|–)$/.test(cell.trim()))
    throw new Error(`${where}: write layer names in backticks, or — for none (got "${cell}")`);
  return list;
}

/** Reads the layer table out of the architecture document's markdown. Throws on a malformed table. */
export function parseLayerTable(markdown) {
  const start = markdown.indexOf(`\n${TABLE_HEADING}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "${TABLE_HEADING}" section`);
  const lines = markdown.slice(start).split('\n').slice(2);
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, line.endsWith('|') ? -1 : undefined)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  const [header, rule, ...body] = rows;
  if (!header || !rule || body.length === 0) throw new Error(`"${TABLE_HEADING}" has no table`);
  const at = COLUMNS.map((c) => header.findIndex((h) => h.toLowerCase() === c));
  const missing = COLUMNS.filter((_, i) => at[i] < 0);
  if (missing.length) throw new Error(`the layer table lacks the column(s): ${missing.join(', ')}`);
  const cell = (row, i) => row[at[i]] ?? '';

  const layers = body.map((row, n) => {
    const where = `layer table, row ${n + 1}`;
    const [name] = codes(cell(row, 0));
    const [path] = codes(cell(row, 1));
    if (!name) throw new Error(`${where}: no layer name in backticks`);
    if (!path || !/^src\/[\w./-]+$/.test(path))
      throw new Error(`${where}: the folder must be a path in src/`);
    const file = !path.endsWith('/');
    const door = cell(row, 4);
    return {
      name,
      path: path.replace(/\/$/, ''),
      file,
      coming: /\bcoming\b/i.test(cell(row, 0)),
      mayImport: names(cell(row, 2), `${where} (${name}), may import`),
      testsMayImport: names(cell(row, 3), `${where} (${name}), tests`),
      doors: /any file|^(—|-|–)$/.test(door) ? null : codes(door),
      effects: cell(row, 5),
      pure: /^none\b/i.test(cell(row, 5)),
    };
  });

  const known = new Set(layers.map((l) => l.name));
  for (const l of layers) {
    if (layers.filter((m) => m.name === l.name || m.path === l.path).length > 1)
      throw new Error(`the layer table lists ${l.name} (${l.path}) twice`);
    for (const t of [...l.mayImport, ...l.testsMayImport]) {
      if (!known.has(t)) throw new Error(`${l.name} may import "${t}", which is not a layer of the table`);
      if (t === l.name) throw new Error(`${l.name} lists itself`);
    }
    if (l.doors && l.doors.length === 0) throw new Error(`${l.name}: front door files in backticks`);
  }
  return layers;
}

export function readLayerTable() {
  return parseLayerTable(readFileSync(ARCHITECTURE_DOC, 'utf8'));
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const under = (path, dir) => path.startsWith(`${dir}/`);
const alternatives = (list) => `(?:${list.map(escape).join('|')})`;
/** Not a path into any of `rels` (relative paths from the same folder). */
const notInto = (rels) => (rels.length ? `(?!${alternatives(rels)}(?:/|$))` : '');
/** Not a climb (`../`) or a same-folder step (`./`). */
const NOT_A_STEP = '(?!\\.\\.?(?:/|$))';

/**
 * The `no-restricted-imports` patterns for a file of `layer` whose folder is `known` (a folder path
 * with no wildcards) plus `depth` more folders; `allowed` are the layers it may import.
 */
function importPatterns(layers, layer, known, depth, allowed) {
  const ref = `docs/architecture.md, "Who may import what"`;
  const may = allowed.length ? allowed.join(', ') : 'no other layer';
  const forbid = (target) => `${layer.name} may not import ${target.name}: it may import ${may} (${ref}).`;
  const nested = (target) => layers.filter((l) => under(l.path, target.path));
  const patterns = [];
  const segments = known.split('/');
  // From the file's folder, `ups` times `../` lands in `landing`: the known folders, then the repo root.
  for (let ups = depth; ups <= segments.length + depth; ups++) {
    const landing = segments.slice(0, segments.length + depth - ups).join('/');
    const prefix = `^${ups === 0 ? '\\./' : `(?:\\.\\./){${ups}}`}`;
    if (landing === '') {
      patterns.push({ regex: `${prefix}src(?:/|$)`, message: 'Import within src/ without leaving it.' });
      continue;
    }
    const children = layers.filter((l) => under(l.path, landing));
    const childRels = children.map((c) => c.path.slice(landing.length + 1));
    for (const target of children) {
      if (target === layer) continue;
      const rel = target.path.slice(landing.length + 1);
      const inner = nested(target).map((n) => n.path.slice(target.path.length + 1));
      const self = target.file ? '$' : `(?:$|/${notInto(inner)})`;
      if (!allowed.includes(target.name)) {
        patterns.push({ regex: `${prefix}${escape(rel)}${self}`, message: forbid(target) });
      } else if (target.doors) {
        patterns.push({
          regex: `${prefix}${escape(rel)}/(?!${alternatives(target.doors)}$)${notInto(inner)}`,
          message: `${layer.name} may import ${target.name} only through its front door: ${target.doors
            .map((d) => `${target.path}/${d}`)
            .join(' or ')}.`,
        });
      }
    }
    // What lands in `landing` outside its nested layers belongs to the layer that holds `landing`.
    const owner = layers
      .filter((l) => !l.file && (l.path === landing || under(landing, l.path)))
      .sort((a, b) => b.path.length - a.path.length)[0];
    const rest = `${prefix}${NOT_A_STEP}${notInto(childRels)}`;
    if (!owner)
      patterns.push({
        regex: rest,
        message: `This path is in no layer of docs/architecture.md ("Who may import what"): add the layer to the table first.`,
      });
    else if (owner !== layer && !allowed.includes(owner.name))
      patterns.push({ regex: rest, message: forbid(owner) });
    else if (owner !== layer && owner.doors && owner.path === landing)
      patterns.push({
        regex: `${rest}(?!${alternatives(owner.doors)}$)`,
        message: `${layer.name} may import ${owner.name} only through its front door.`,
      });
  }
  return patterns;
}

const PURE_GLOBALS = [
  { name: 'fetch', message: 'Pure layers take data in and return data; network lives in src/executor/llm.' },
  { name: 'setTimeout', message: 'No timers in pure layers.' },
  { name: 'setInterval', message: 'No timers in pure layers.' },
  { name: 'requestAnimationFrame', message: 'No animation frames in pure layers.' },
  { name: 'localStorage', message: 'Storage lives in src/store/services.' },
  { name: 'sessionStorage', message: 'Storage lives in src/store/services.' },
  { name: 'indexedDB', message: 'Storage lives in src/store/services.' },
  { name: 'document', message: 'No DOM in pure layers.' },
  { name: 'window', message: 'No DOM in pure layers.' },
];
const NETWORK = ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource'];
const MESSAGING = ['Worker', 'SharedWorker', 'MessageChannel'];

/** The effect rules of one block: which globals, properties and syntax the layer may not use. */
function effectRules(layers, layer, test) {
  const owners = (word) => layers.filter((l) => l.effects.includes(`\`${word}\``)).map((l) => l.name);
  const network = owners('fetch');
  const messaging = owners('postMessage');
  const gpu = owners('navigator.gpu');
  const globals = layer.pure && !test ? [...PURE_GLOBALS] : [];
  const properties = [];
  const syntax = [];
  if (!network.includes(layer.name))
    for (const name of NETWORK)
      if (!globals.some((g) => g.name === name))
        globals.push({ name, message: `Network only in ${network.join(', ')} (docs/architecture.md).` });
  if (!messaging.includes(layer.name)) {
    const message = `postMessage and workers only in ${messaging.join(', ')}: call a store action instead.`;
    globals.push({ name: 'postMessage', message });
    for (const name of MESSAGING) globals.push({ name, message });
    syntax.push({ selector: "CallExpression[callee.property.name='postMessage']", message });
  }
  if (layer.pure && !test)
    properties.push({
      object: 'Math',
      property: 'random',
      message: 'Use the seeded RNG from src/core/rng.ts.',
    });
  if (!gpu.includes(layer.name))
    properties.push({
      object: 'navigator',
      property: 'gpu',
      message: `navigator.gpu only in ${gpu.join(', ')}: use chooseBackend from src/gpu/index.ts.`,
    });
  return { globals, properties, syntax };
}

/** A regex for an esquery selector: `/` must be escaped there. */
const selectorRegex = (regex) => `/${regex.replace(/\//g, '\\/')}/`;

/**
 * ESLint flat-config objects for every layer of the table: imports (static and dynamic) limited to
 * the layers its row allows, front doors, and the effects the row does not list.
 */
export function layerConfigs(layers) {
  const configs = [];
  for (const layer of layers) {
    const known = layer.file ? layer.path.slice(0, layer.path.lastIndexOf('/')) : layer.path;
    const inner = layers.filter((l) => under(l.path, layer.path)).map((l) => `${l.path}/**`);
    for (let depth = 0; depth < (layer.file ? 1 : MAX_DEPTH); depth++) {
      const folder = `${known}/${'*/'.repeat(depth)}`;
      for (const test of [false, true]) {
        const files = layer.file ? [layer.path] : [`${folder}${test ? TEST : `*.${SOURCE}`}`];
        if (layer.file && test) continue;
        const allowed = test ? [...layer.mayImport, ...layer.testsMayImport] : layer.mayImport;
        const patterns = importPatterns(layers, layer, known, depth, allowed).map((p) => ({
          ...p,
          caseSensitive: true,
        }));
        const { globals, properties, syntax } = effectRules(layers, layer, test);
        configs.push({
          name: `baton/layers/${layer.name}/depth-${depth}${test ? '/tests' : ''}`,
          files,
          ignores: [...inner, ...(test || layer.file ? [] : [`${folder}${TEST}`])],
          rules: {
            'no-restricted-imports': ['error', { patterns }],
            'no-restricted-syntax': [
              'error',
              ...patterns.map((p) => ({
                selector: `ImportExpression[source.value=${selectorRegex(p.regex)}]`,
                message: p.message,
              })),
              ...syntax,
            ],
            'no-restricted-globals': ['error', ...globals],
            'no-restricted-properties': ['error', ...properties],
          },
        });
      }
    }
  }
  return configs;
}
