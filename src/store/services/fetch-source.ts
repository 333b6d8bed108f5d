import { fail, ok, type Result } from '../../core/result.ts';
import { errorText, serviceProblem } from './problems.ts';

/** Largest file `?src=` or the examples fetch will read, in bytes (matches MAX_TRACE_CHARS). */
export const MAX_FETCH_BYTES = 32 * 1024 * 1024;
/** How long a fetch may take, headers and body together, in milliseconds. */
export const FETCH_TIMEOUT_MS = 30_000;

export interface FetchOptions {
  maxBytes?: number;
  timeoutMs?: number;
  /** Relative URLs resolve against this (the page's address in the app). */
  base?: string;
  fetchImpl?: typeof fetch;
}

export interface Fetched {
  text: string;
  /** The resolved URL, and the last path segment as a file name for the importers. */
  url: string;
  name: string;
}

/** Parses an untrusted address; only http(s) is fetched so `javascript:`/`data:` never run. */
export function resolveFetchUrl(input: string, base?: string): Result<URL> {
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return fail(serviceProblem('E_FETCH_URL', JSON.stringify(input.slice(0, 200))));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(serviceProblem('E_FETCH_URL', `only http and https addresses, not ${url.protocol}`));
  }
  return ok(url);
}

export function fileNameOf(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).pop();
  try {
    return last ? decodeURIComponent(last) : url.hostname;
  } catch {
    return last ?? url.hostname;
  }
}

/**
 * Fetches a text file with a size cap and a timeout. Never throws: CORS refusals and network
 * failures (which the browser reports identically, as a TypeError), HTTP errors, timeouts and
 * oversized bodies each become a problem that says what happened.
 */
export async function fetchText(input: string, options: FetchOptions = {}): Promise<Result<Fetched>> {
  const maxBytes = options.maxBytes ?? MAX_FETCH_BYTES;
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const doFetch = options.fetchImpl ?? fetch;
  const resolved = resolveFetchUrl(input, options.base);
  if (!resolved.ok) return resolved;
  const url = resolved.value;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    let response: Response;
    try {
      response = await doFetch(url.href, { signal: controller.signal, credentials: 'omit' });
    } catch (e) {
      if (timedOut)
        return fail(serviceProblem('E_FETCH_TIMEOUT', `no answer from ${url.host} in ${timeoutMs / 1000} s`));
      return fail(
        serviceProblem(
          'E_FETCH_NETWORK',
          `${url.href} — the network failed or the server does not allow cross-origin (CORS) requests from this page (${errorText(e)})`,
        ),
      );
    }
    if (!response.ok) {
      return fail(
        serviceProblem(
          'E_FETCH_HTTP',
          `${url.href} answered HTTP ${response.status} ${response.statusText}`.trim(),
        ),
      );
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      controller.abort();
      return fail(
        serviceProblem(
          'E_FETCH_TOO_LARGE',
          `${formatBytes(declared)}; the limit is ${formatBytes(maxBytes)}`,
        ),
      );
    }
    const body = await readCapped(response, maxBytes);
    if (!body.ok) {
      controller.abort();
      return body;
    }
    return ok({ text: body.value, url: url.href, name: fileNameOf(url) });
  } catch (e) {
    if (timedOut)
      return fail(serviceProblem('E_FETCH_TIMEOUT', `no answer from ${url.host} in ${timeoutMs / 1000} s`));
    return fail(serviceProblem('E_FETCH_NETWORK', `${url.href}: ${errorText(e)}`));
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the body chunk by chunk so a server that lies about its length cannot exhaust memory. */
async function readCapped(response: Response, maxBytes: number): Promise<Result<string>> {
  if (!response.body) {
    const text = await response.text();
    if (text.length > maxBytes)
      return fail(serviceProblem('E_FETCH_TOO_LARGE', `the limit is ${formatBytes(maxBytes)}`));
    return ok(text);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      return fail(serviceProblem('E_FETCH_TOO_LARGE', `more than ${formatBytes(maxBytes)}`));
    }
    text += decoder.decode(value, { stream: true });
  }
  return ok(text + decoder.decode());
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
