/**
 * Model folders made by the Train page's orchestrator mode, kept in the browser's Cache Storage
 * under the URL `<base>trained-models/<id>/<file>`, where no server file is. The training worker
 * writes them (`putTrainedFolder`); the orchestrator worker reads them through
 * `trainedModelsFetch`, the fetch its model loader uses, so "Use in Orchestrate" loads the trained
 * weights as a model folder URL like any other, offline, and they survive a reload.
 */

/** Where exported folders live, under the app's base URL. */
export const TRAINED_MODELS_PATH = 'trained-models/';

export const TRAINED_MODELS_CACHE = 'baton-trained-models';

const TYPES: Record<string, string> = { json: 'application/json', onnx: 'application/octet-stream' };

/** Writes a folder's files under `folderUrl` (ending in `/`). */
export async function putTrainedFolder(
  folderUrl: string,
  files: Map<string, Uint8Array | string>,
): Promise<void> {
  const cache = await caches.open(TRAINED_MODELS_CACHE);
  for (const [path, body] of files) {
    const ext = path.split('.').pop() ?? '';
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    await cache.put(
      new URL(path, folderUrl).href,
      new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
        headers: {
          'content-type': TYPES[ext] ?? 'application/octet-stream',
          'content-length': String(bytes.length),
        },
      }),
    );
  }
}

/** Is this URL under some base's `trained-models/`? */
export const isTrainedModelUrl = (url: string): boolean => {
  try {
    return new URL(url).pathname.includes(`/${TRAINED_MODELS_PATH}`);
  } catch {
    return false;
  }
};

/**
 * `fetch`, except that a URL under `trained-models/` is answered from Cache Storage: the file, or a
 * 404 when that folder has no such file (transformers.js asks for optional files too).
 */
export function trainedModelsFetch(base?: typeof fetch): typeof fetch {
  return async (input, init) => {
    base ??= fetch;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (typeof caches === 'undefined' || !isTrainedModelUrl(url)) return base(input, init);
    const cache = await caches.open(TRAINED_MODELS_CACHE);
    // transformers.js joins a folder URL and a file name with one more `/` (`…/id//config.json`).
    const hit = await cache.match(url.replace(/([^:/])\/{2,}/g, '$1/'));
    if (!hit) return new Response('not found', { status: 404, statusText: 'Not Found' });
    if ((init?.method ?? 'GET').toUpperCase() === 'HEAD')
      return new Response(null, { status: 200, headers: hit.headers });
    return hit;
  };
}

/** The files of a model folder the trainer reads: config and tokenizer as text, the fp32 ONNX file as bytes. */
export async function fetchModelFolder(
  folderUrl: string,
): Promise<{ config: string; tokenizer: string; tokenizerConfig: string; onnx: Uint8Array }> {
  const get = async (file: string): Promise<Response> => {
    const r = await trainedModelsFetch()(new URL(file, folderUrl).href);
    if (!r.ok)
      throw new Error(`not a usable orchestrator model folder: ${file}: HTTP ${r.status} at ${folderUrl}`);
    return r;
  };
  const [config, tokenizer, tokenizerConfig, onnx] = await Promise.all([
    get('config.json').then((r) => r.text()),
    get('tokenizer.json').then((r) => r.text()),
    get('tokenizer_config.json').then((r) => r.text()),
    get('onnx/model.onnx').then(async (r) => new Uint8Array(await r.arrayBuffer())),
  ]);
  return { config, tokenizer, tokenizerConfig, onnx };
}
