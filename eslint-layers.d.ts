import type { Linter } from 'eslint';

/** One row of the table "Who may import what" in docs/architecture.md. */
export interface Layer {
  /** e.g. `store/services` */
  name: string;
  /** e.g. `src/store/services`, or a file: `src/main.tsx` */
  path: string;
  /** The row is one file, not a folder. */
  file: boolean;
  /** Planned; its rules wait for its files. */
  coming: boolean;
  mayImport: string[];
  /** Extra layers for `*.test.ts(x)` files. */
  testsMayImport: string[];
  /** The files other layers may import; null: any file. */
  doors: string[] | null;
  effects: string;
  /** Effects "none": no fetch, timers, DOM, storage or Math.random outside tests. */
  pure: boolean;
}

export const ARCHITECTURE_DOC: URL;
export const MAX_DEPTH: number;
export function parseLayerTable(markdown: string): Layer[];
export function readLayerTable(): Layer[];
export function layerConfigs(layers: Layer[]): Linter.Config[];
