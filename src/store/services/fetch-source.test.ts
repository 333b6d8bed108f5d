import { describe, expect, it } from 'vitest';
import { fetchText, resolveFetchUrl } from './fetch-source.ts';

const respond =
  (body: string, init: ResponseInit = {}): typeof fetch =>
  async () =>
    new Response(body, init);

describe('fetchText', () => {
  it('resolves relative addresses against the page and names the file', async () => {
    let asked = '';
    const fetchImpl: typeof fetch = async (input) => {
      asked = String(input);
      return new Response('{"a":1}');
    };
    const r = await fetchText('examples/x.json', { base: 'https://host.example/app/', fetchImpl });
    expect(asked).toBe('https://host.example/app/examples/x.json');
    expect(r).toMatchObject({ ok: true, value: { text: '{"a":1}', name: 'x.json' } });
  });

  it('refuses addresses that are not http(s)', () => {
    for (const bad of ['javascript:alert(1)', 'data:text/plain,hi', 'file:///etc/passwd']) {
      const r = resolveFetchUrl(bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]?.code).toBe('E_FETCH_URL');
    }
  });

  it('explains network and CORS failures', async () => {
    const fetchImpl: typeof fetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    const r = await fetchText('https://elsewhere.example/t.json', { fetchImpl });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0]?.code).toBe('E_FETCH_NETWORK');
      expect(r.errors[0]?.message).toMatch(/CORS/);
    }
  });

  it('reports the HTTP status', async () => {
    const r = await fetchText('https://h.example/missing.json', {
      fetchImpl: respond('nope', { status: 404, statusText: 'Not Found' }),
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.message).toMatch(/HTTP 404 Not Found/);
  });

  it('stops at the size cap, whether or not the server declares the length', async () => {
    const declared = await fetchText('https://h.example/big.json', {
      maxBytes: 10,
      fetchImpl: respond('x'.repeat(5), { headers: { 'content-length': '999' } }),
    });
    expect(declared.ok || declared.errors[0]?.code).toBe('E_FETCH_TOO_LARGE');
    const streamed = await fetchText('https://h.example/big.json', {
      maxBytes: 10,
      fetchImpl: respond('x'.repeat(50)),
    });
    expect(streamed.ok || streamed.errors[0]?.code).toBe('E_FETCH_TOO_LARGE');
  });

  it('times out a server that never answers', async () => {
    const fetchImpl: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    const r = await fetchText('https://slow.example/t.json', { timeoutMs: 20, fetchImpl });
    expect(r.ok || r.errors[0]?.code).toBe('E_FETCH_TIMEOUT');
  });
});
