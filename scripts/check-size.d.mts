// Types for check-size.mjs, which Node runs as plain JavaScript, for its unit test and the e2e tests.

export interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface RouteModules {
  route: string;
  modules: string[];
}
export interface Row {
  label: string;
  files: string[];
  bytes: number;
}
export interface Report {
  initial: string[];
  initialBytes: number;
  budgetBytes: number;
  ok: boolean;
  routes: Row[];
  others: Row[];
  notLazy: string[];
}

export const BUDGET_KB: number;
export const ROUTES: RouteModules[];
export function entryKey(manifest: Manifest): string;
export function staticClosure(manifest: Manifest, key: string): string[];
export function lazyChunks(manifest: Manifest, from: string): string[];
export function htmlScripts(html: string): string[];
export function initialFiles(manifest: Manifest, html?: string): string[];
export function addedFiles(manifest: Manifest, key: string, loaded: string[]): string[];
export function report(
  manifest: Manifest,
  html: string,
  sizeOf: (file: string) => number,
  budgetKb?: number,
  routes?: RouteModules[],
): Report;
export function formatReport(report: Report): string[];
