/**
 * The model file cache: in the browser, transformers.js keeps downloaded files in the Cache API
 * under one key (`env.cacheKey`, `transformers-cache`); in Node, in the folder `load.ts` was given.
 * Clearing removes every cached model file (the next load downloads again).
 */

/** transformers.js' Cache API key (its `env.cacheKey` default). */
export const MODEL_CACHE_KEY = 'transformers-cache';

export interface CacheSummary {
  files: number;
  /** Bytes, where responses say their length. */
  bytes: number;
}

/** What the browser cache holds; null where there is no Cache API. */
export async function cachedModelFiles(key = MODEL_CACHE_KEY): Promise<CacheSummary | null> {
  if (typeof caches === 'undefined') return null;
  if (!(await caches.has(key))) return { files: 0, bytes: 0 };
  const cache = await caches.open(key);
  const requests = await cache.keys();
  let bytes = 0;
  for (const r of requests) {
    const res = await cache.match(r);
    bytes += Number(res?.headers.get('content-length')) || 0;
  }
  return { files: requests.length, bytes };
}

/** Deletes the browser's cached model files; answers how many there were (0 without a Cache API). */
export async function clearModelCache(key = MODEL_CACHE_KEY): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  if (!(await caches.has(key))) return 0;
  const n = (await (await caches.open(key)).keys()).length;
  await caches.delete(key);
  return n;
}
