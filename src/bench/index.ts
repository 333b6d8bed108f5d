export * from './answers/index.ts';
export * from './masbench/index.ts';
export { createBenchRng, hashString, mix32, type BenchRng } from './rng.ts';
