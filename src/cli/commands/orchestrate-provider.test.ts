/**
 * `baton orchestrate --orchestrator provider` against the local OpenAI-wire test server, scripted to
 * answer with five broken designs and then a good one: the repair loop, the trace's attempts, one
 * budget for the design and the run, the server's bill, and the key kept out of everything.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { designScriptResponder } from '../../../tests/server/design-script.ts';
import {
  defaultResponder,
  startOpenAIServer,
  type OpenAIServer,
} from '../../../tests/server/openai-server.ts';
import { TraceSchema, type Trace } from '../../core/trace.ts';
import { DEFAULT_PRICES } from '../../executor/llm/index.ts';
import { orchestrateCommand } from './orchestrate.ts';

const KEY = 'sk-orchestrate-provider-7Hq2Lm9Xc';
const MODEL = 'gpt-4.1-mini';
const QUERY = 'Compare the GDP growth of France and Germany in 2023';
let server: OpenAIServer;
let dir: string;
let bill = { tokens: 0, usd: 0 };

beforeAll(async () => {
  process.env.BATON_ORCH_TEST_KEY = KEY;
  server = await startOpenAIServer({
    apiKey: KEY,
    responder: designScriptResponder(defaultResponder),
    onBilled: (u, model) => {
      const p = DEFAULT_PRICES[model]!;
      bill.tokens += u.prompt_tokens + u.completion_tokens;
      bill.usd += (u.prompt_tokens * p.inputPerMTok + u.completion_tokens * p.outputPerMTok) / 1e6;
    },
  });
});
afterAll(() => server.close());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-orch-provider-'));
  bill = { tokens: 0, usd: 0 };
  server.reset();
});

async function cli(extra: string[]): Promise<{ code: number; out: string; err: string; trace: Trace }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await orchestrateCommand.run(
    [
      '--task',
      QUERY,
      '--out',
      't.json',
      '--orchestrator',
      'provider',
      '--base-url',
      server.baseUrl,
      '--model',
      MODEL,
      '--api-key-env',
      'BATON_ORCH_TEST_KEY',
      ...extra,
    ],
    { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir },
  );
  const text = await readFile(join(dir, 't.json'), 'utf8');
  expect(text).not.toContain(KEY);
  return { code, out: out.join('\n'), err: err.join('\n'), trace: TraceSchema.parse(JSON.parse(text)) };
}

describe('baton orchestrate --orchestrator provider', () => {
  it('repairs five broken designs, runs the sixth, and the trace bills what the server billed', async () => {
    const r = await cli(['--repair-turns', '5', '--execute', 'remote', '--budget-usd', '1']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /design budget: at most 6 calls, up to \d+ tokens \(\$\d+\.\d+\); limits shared with the run: no token limit, \$1\.0+/,
    );
    expect(r.out).toMatch(/attempt 1: \d+ tokens, .* · \d+ problems?/);
    expect(r.out).toMatch(/attempt 6: .* · valid/);
    expect(`${r.out}\n${r.err}`).not.toContain(KEY);
    const d = r.trace.designer;
    if (d.kind !== 'orchestrator') throw new Error('designer');
    expect(d.attempts).toHaveLength(6);
    expect(d.usedAttempt).toBe(5);
    expect(d.provider).toBe(server.baseUrl);
    expect(r.trace.design.agents.map((a) => a.id)).toEqual(['france', 'germany', 'compare']);
    expect(r.trace.execution.status).toBe('completed');
    // The server's bill: the six design calls and the run's three agent calls.
    const t = r.trace.totals;
    expect(d.usage!.promptTokens + d.usage!.completionTokens + t.promptTokens + t.completionTokens).toBe(
      bill.tokens,
    );
    expect(d.usage!.costUsd! + t.costUsd).toBeCloseTo(bill.usd, 10);
  });

  it('stops after the default two repair turns with the problems printed and the trace kept', async () => {
    const r = await cli([]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no design: no valid design after 3 attempts \(2 repair turns\)/);
    expect(r.out).toMatch(/ {2}rule 9: /);
    expect(r.trace.tags).toContain('invalid-design');
    const d = r.trace.designer;
    expect(d.kind === 'orchestrator' && d.usedAttempt).toBe(null);
  });

  it('holds the design calls to the budget: a call that could cross it is refused, saying spent and held', async () => {
    const r = await cli(['--repair-turns', '5', '--budget-tokens', '6000']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/was not sent: budget: Not sent: .*Budget: spent \d+ tokens/);
    expect(bill.tokens).toBeLessThanOrEqual(6000);
  });

  it('--design-output json-schema asks for the JSON schema and records it; a refusing server gets XML, said in the output and the trace', async () => {
    const r = await cli(['--repair-turns', '5', '--design-output', 'json-schema']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/output json-schema/);
    expect(r.out).toMatch(/design output: the design's JSON schema \(response_format\)/);
    const d = r.trace.designer;
    if (d.kind !== 'orchestrator') throw new Error('designer');
    expect(d.output).toBe('json-schema');
    expect(d.attempts?.[0]?.rawOutput.startsWith('{')).toBe(true);
    expect(
      server.requests
        .filter((q) => q.path === '/v1/chat/completions')
        .every((q) => {
          const b = q.body as { response_format?: { type: string } };
          return b.response_format?.type === 'json_schema';
        }),
    ).toBe(true);

    server.reset();
    server.setFaults({ refuseResponseFormat: true });
    const x = await cli(['--repair-turns', '5', '--design-output', 'json-schema']);
    expect(x.code, x.err).toBe(0);
    expect(x.out).toMatch(/design output: MAS-Orchestra XML \(the server refused response_format/);
    const e = x.trace.designer;
    if (e.kind !== 'orchestrator') throw new Error('designer');
    expect(e.output).toBe('xml');
    expect(e.outputFallback).toMatch(/HTTP 400/);
    expect(e.attempts).toHaveLength(7);
  });

  it('says which flags it needs', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), cwd: dir };
    expect(
      await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--orchestrator', 'provider'], io),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/--orchestrator provider needs --base-url and --model/);
    expect(await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--repair-turns', '3'], io)).toBe(
      2,
    );
    expect(
      await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--design-output', 'json-schema'], io),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/--design-output only applies with --orchestrator provider/);
    expect(
      await orchestrateCommand.run(
        ['--task', 'q', '--out', 'x.json', '--orchestrator', 'provider', '--design-output', 'yaml'],
        io,
      ),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/--design-output must be one of xml, json-schema, auto/);
  });
});
