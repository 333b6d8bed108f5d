/**
 * Checks of the local test server itself (tests/server/openai-server.ts) that the client
 * tests rely on but do not exercise: CORS for browser pages, the control endpoints, and the
 * standalone process used by e2e tests and benchmarks.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(async () => {
  await server.close();
});

describe('test server', () => {
  it('answers a CORS preflight from another localhost origin', async () => {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
        'access-control-request-private-network': 'true',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-private-network')).toBe('true');
  });

  it('exposes Retry-After to pages and applies per-request faults from the header', async () => {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        origin: 'http://localhost:5173',
        'content-type': 'application/json',
        'x-test-fault': JSON.stringify({ status: 429, retryAfter: '1' }),
      },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('access-control-expose-headers')).toContain('retry-after');
    expect(await res.json()).toMatchObject({ error: { message: 'Injected fault: HTTP 429.' } });
  });

  it('takes faults from POST /__control and reports requests at GET /__control/requests', async () => {
    server.reset();
    const control = await fetch(`${server.url}/__control`, {
      method: 'POST',
      body: JSON.stringify({ once: [{ status: 503 }] }),
    });
    expect(await control.json()).toMatchObject({ ok: true, queued: 1 });
    const body = JSON.stringify({ messages: [{ role: 'user', content: '1 2 3' }] });
    const first = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body });
    const second = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body });
    expect([first.status, second.status]).toEqual([503, 200]);
    expect(
      ((await second.json()) as { choices: [{ message: { content: string } }] }).choices[0].message.content,
    ).toContain('\\boxed{6}');
    const recorded = (await (await fetch(`${server.url}/__control/requests`)).json()) as { path: string }[];
    expect(recorded.map((r) => r.path)).toEqual([
      '/__control',
      '/v1/chat/completions',
      '/v1/chat/completions',
      '/__control/requests',
    ]);
  });

  it('runs as a standalone process with --port and --latency', async () => {
    // node itself with tsx's loader (not the npx/tsx wrappers), so killing the child ends
    // the server instead of orphaning it.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tests/server/openai-server.ts', '--port', '0', '--latency', '5'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+) /.exec(out);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${String(code)}`)));
      });
      const res = await fetch(`${url}/v1/models`);
      expect(((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toContain(
        'baton-test-echo',
      );
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
