/**
 * `baton eval` with an orchestrator method on a provider: the provider's model writes each task's
 * design (repairing a broken one), the design runs, and the method's cost includes the
 * orchestrator's calls; the document's totals equal the test server's own bill.
 */
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_DESIGNS, GOOD_DESIGN, designScriptResponder } from '../../../tests/server/design-script.ts';
import {
  defaultResponder,
  startOpenAIServer,
  type OpenAIServer,
} from '../../../tests/server/openai-server.ts';
import { parseTraceJson } from '../../core/parse-trace.ts';
import { EvalDocumentSchema } from '../../eval/index.ts';
import { DEFAULT_PRICES } from '../../executor/llm/index.ts';
import { evalCommand } from './eval.ts';

const KEY = 'sk-eval-orchestrator-Kq4Zr81Lpw';
const MODEL = 'gpt-4.1-mini';
let dir: string;
let server: OpenAIServer;
const bill = { tokens: 0, usd: 0, calls: 0 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-eval-orch-'));
  server = await startOpenAIServer({
    apiKey: KEY,
    responder: designScriptResponder(defaultResponder, [BROKEN_DESIGNS[1]!.xml, GOOD_DESIGN]),
    onBilled: (u, model) => {
      const p = DEFAULT_PRICES[model]!;
      bill.tokens += u.prompt_tokens + u.completion_tokens;
      bill.usd += (u.prompt_tokens * p.inputPerMTok + u.completion_tokens * p.outputPerMTok) / 1e6;
      bill.calls += 1;
    },
  });
});
afterAll(() => server.close());

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await evalCommand.run(args, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('baton eval --methods cot,sc,orchestrator:tiny,orchestrator:provider --backend provider', () => {
  it("writes one table with the orchestrator's cost in the method's cost, equal to the server's bill", async () => {
    const lines = Array.from({ length: 3 }, (_, i) =>
      JSON.stringify({ id: `q${i}`, query: `Add ${i} and ${i + 2}.`, answer: 2 * i + 2 }),
    );
    await writeFile(join(dir, 'sums.jsonl'), lines.join('\n') + '\n');
    process.env.BATON_EVAL_ORCH_KEY = KEY;
    const r = await cli([
      '--methods',
      'cot,sc,orchestrator:tiny,orchestrator:provider',
      '--tasks',
      'sums.jsonl',
      '--backend',
      'provider',
      '--base-url',
      server.baseUrl,
      '--model',
      MODEL,
      '--api-key-env',
      'BATON_EVAL_ORCH_KEY',
      '--budget-usd',
      '1',
      '--out',
      'orch.json',
      '--traces',
      'orch-traces',
      '--fresh',
    ]);
    expect(r.code, r.err).toBe(0);
    const text = await readFile(join(dir, 'orch.json'), 'utf8');
    const doc = EvalDocumentSchema.parse(JSON.parse(text));
    // One table: every method.
    expect(doc.summary.methods.map((m) => m.method)).toEqual([
      'cot',
      'sc',
      'orchestrator:tiny',
      'orchestrator:provider',
    ]);
    // The offline tiny model writes its designs in this process: no price, so its designs cost $0,
    // and their tokens are counted in the rows (one local call each).
    const tiny = doc.rows.filter((x) => x.method === 'orchestrator:tiny');
    expect(tiny).toHaveLength(3);
    for (const row of tiny) {
      const t = parseTraceJson(await readFile(join(dir, 'orch-traces', `${row.traceId}.json`), 'utf8'));
      if (!t.ok) throw new Error('trace');
      expect(t.value.designer).toMatchObject({ kind: 'orchestrator', model: 'baton-orchestrator-tiny' });
      expect(row.orchestrator).toMatchObject({ calls: 1, costUsd: 0 });
      expect(row.orchestrator!.tokens).toBeGreaterThan(0);
      expect(row.tokens).toBe(
        t.value.totals.promptTokens + t.value.totals.completionTokens + row.orchestrator!.tokens,
      );
      expect(row.status).toBe('completed');
    }
    const orch = doc.rows.filter((x) => x.method === 'orchestrator:provider');
    expect(orch).toHaveLength(3);
    for (const row of orch) {
      // Two design calls (a broken design, then the repaired one) per task, counted in the row.
      expect(row.orchestrator?.calls).toBe(2);
      expect(row.status).toBe('completed');
      const t = parseTraceJson(await readFile(join(dir, 'orch-traces', `${row.traceId}.json`), 'utf8'));
      if (!t.ok) throw new Error('trace');
      const d = t.value.designer;
      if (d.kind !== 'orchestrator') throw new Error('designer');
      expect(d.usedAttempt).toBe(1);
      expect(d.attempts?.[0]?.problems.some((p) => p.startsWith('rule 6:'))).toBe(true);
      const runTokens = t.value.totals.promptTokens + t.value.totals.completionTokens;
      expect(row.tokens).toBe(runTokens + row.orchestrator!.tokens);
      expect(row.costUsd).toBeCloseTo(t.value.totals.costUsd + row.orchestrator!.costUsd, 12);
      expect(row.orchestrator!.costUsd).toBeGreaterThan(0);
      expect(row.llmCalls).toBe(t.value.totals.llmCalls + 2);
    }
    // The summary's cost for the method is its rows' cost, orchestrator included.
    const s = doc.summary.methods.find((m) => m.method === 'orchestrator:provider')!;
    expect(s.overall.totalCostUsd).toBeCloseTo(
      orch.reduce((a, x) => a + x.costUsd, 0),
      12,
    );
    expect(doc.summary.pareto.length).toBeGreaterThan(0);
    // The document's spend is the server's own bill (every call, designs and runs) plus the tokens
    // the tiny model read and wrote in this process.
    const local = tiny.reduce((a, x) => a + x.orchestrator!.tokens, 0);
    expect(doc.spend.tokens).toBe(bill.tokens + local);
    expect(doc.spend.usd).toBeCloseTo(bill.usd, 10);
    // The key is nowhere in the output, the document, the journal or the traces.
    const files = [text, await readFile(join(dir, 'orch.json.journal.jsonl'), 'utf8'), r.out, r.err];
    for (const f of await readdir(join(dir, 'orch-traces')))
      files.push(await readFile(join(dir, 'orch-traces', f), 'utf8'));
    for (const f of files) expect(f).not.toContain(KEY);
  }, 120_000);
});
