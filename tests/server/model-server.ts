/**
 * A real, local HTTP server that serves model folders in the Hugging Face hub's URL layout,
 * `/<owner>/<name>/resolve/<revision>/<file>`, so tests load a model through the same code path a
 * hub download takes (transformers.js with `env.remoteHost` pointed here). Unit tests start it
 * in-process (`startModelServer`); browser e2e tests and benchmarks run it as a process:
 *
 *   tsx tests/server/model-server.ts --port 8790 --repo baton/tiny=models/baton-orchestrator-tiny
 *
 * Faults per repo and file, for the bad-input tests: `truncate` (serve only the first bytes, with
 * a matching content-length, as a cut download that was stored), `corrupt` (replace the bytes),
 * `status` (answer with that HTTP status). Every request is recorded, so a test can tell a cached
 * load (no requests) from a download.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface FileFault {
  /** Serve only this many leading bytes. */
  truncate?: number;
  /** Serve these bytes instead. */
  corrupt?: Uint8Array;
  /** Answer with this status and no file. */
  status?: number;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>/`: what `env.remoteHost` is set to. */
  url: string;
  /** Adds (or replaces) a repo: `owner/name` served from `folder`. */
  serve(repo: string, folder: string): void;
  /** Sets a fault on one file of a repo (`file` as in the URL, e.g. `onnx/model_q4.onnx`); null clears it. */
  fault(repo: string, file: string, fault: FileFault | null): void;
  /** Serves `bytes` at an exact path (e.g. `/models/manifest.json`); null removes it. */
  file(path: string, bytes: Uint8Array | string | null): void;
  /** Requests so far: method and path. */
  requests: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  json: 'application/json; charset=utf-8',
  onnx: 'application/octet-stream',
  txt: 'text/plain; charset=utf-8',
};

export async function startModelServer(repos: Record<string, string> = {}, port = 0): Promise<ModelServer> {
  const folders = new Map<string, string>(Object.entries(repos).map(([r, f]) => [r, resolve(f)]));
  const faults = new Map<string, FileFault>();
  const files = new Map<string, Uint8Array | string>();
  const requests: ModelServer['requests'] = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const method = req.method ?? 'GET';
    const answer = (
      status: number,
      body: Uint8Array | string,
      headers: Record<string, string> = {},
    ): void => {
      requests.push({ method, path, status });
      const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
      res.writeHead(status, {
        'content-length': String(bytes.length),
        'access-control-allow-origin': '*',
        ...headers,
      });
      res.end(method === 'HEAD' ? undefined : bytes);
    };
    if (method !== 'GET' && method !== 'HEAD') return answer(405, 'method not allowed');
    const exact = files.get(path);
    if (exact !== undefined)
      return answer(200, exact, {
        'content-type': TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream',
      });
    const m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(decodeURIComponent(path));
    if (!m) return answer(404, 'not found');
    const repo = `${m[1]}/${m[2]}`;
    const file = m[4] as string;
    const folder = folders.get(repo);
    if (!folder) return answer(404, 'Repository not found');
    const fault = faults.get(`${repo}\u0000${file}`);
    if (fault?.status) return answer(fault.status, `status ${fault.status}`);
    const full = normalize(join(folder, file));
    if (!full.startsWith(folder + sep)) return answer(403, 'forbidden');
    void (async () => {
      try {
        if (!(await stat(full)).isFile()) return answer(404, 'Entry not found');
        let bytes: Uint8Array = await readFile(full);
        if (fault?.corrupt) bytes = fault.corrupt;
        if (fault?.truncate !== undefined) bytes = bytes.subarray(0, fault.truncate);
        answer(200, bytes, {
          'content-type': TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream',
        });
      } catch {
        answer(404, 'Entry not found');
      }
    })();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    serve: (repo, folder) => void folders.set(repo, resolve(folder)),
    fault: (repo, file, f) => {
      if (f) faults.set(`${repo}\u0000${file}`, f);
      else faults.delete(`${repo}\u0000${file}`);
    },
    file: (path, bytes) => {
      if (bytes === null) files.delete(path);
      else files.set(path, bytes);
    },
    requests,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const port = Number(args[args.indexOf('--port') + 1] ?? 0) || 0;
  const repos: Record<string, string> = {};
  args.forEach((a, i) => {
    if (a === '--repo') {
      const [repo, folder] = (args[i + 1] ?? '').split('=');
      if (repo && folder) repos[repo] = folder;
    }
  });
  void startModelServer(repos, port).then((s) => console.log(s.url));
}
