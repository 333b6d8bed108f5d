import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countTokens,
  defaultResponder,
  promptTokens,
  startOpenAIServer,
  type ChatRequestBody,
  type OpenAIServer,
  type RecordedRequest,
} from '../../../tests/server/openai-server.ts';
import { parseTraceJson } from '../../core/parse-trace.ts';
import { EvalDocumentSchema, type EvalDocument } from '../../eval/index.ts';
import { evalCommand } from './eval.ts';

let dir: string;
let server: OpenAIServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-eval-'));
  server = await startOpenAIServer();
});
afterAll(() => server.close());

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await evalCommand.run(args, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function readDoc(name: string): Promise<EvalDocument> {
  return EvalDocumentSchema.parse(JSON.parse(await readFile(join(dir, name), 'utf8')));
}

/** The simulator table of docs/simulator.md: agent → the five cells' accuracies. */
async function simulatorTable(): Promise<Map<string, number[]>> {
  const md = await readFile(new URL('../../../docs/simulator.md', import.meta.url), 'utf8');
  const names: Record<string, string> = {
    CoT: 'cot',
    'SC (5)': 'sc',
    Reflexion: 'reflexion',
    'Debate (2 roles, 2 rounds)': 'debate',
    CEO: 'ceo',
  };
  const table = new Map<string, number[]>();
  for (const line of md.split('\n')) {
    const cells = line.split('|').map((s) => s.trim());
    const method = names[cells[1] ?? ''];
    if (method === undefined || cells.length < 8) continue;
    table.set(
      method,
      cells.slice(2, 7).map((c) => Number(c.split(' ')[0])),
    );
  }
  return table;
}
const TABLE_CELLS = [
  ['depth', 2],
  ['depth', 6],
  ['depth', 12],
  ['breadth', 6],
  ['robustness', 4],
] as const;

describe('baton eval on the simulator', () => {
  it("agrees with docs/simulator.md's table within the 95% intervals (5 methods, 20 tasks per cell)", async () => {
    const table = await simulatorTable();
    expect([...table.keys()].sort()).toEqual(['ceo', 'cot', 'debate', 'reflexion', 'sc']);
    // The table ran the simulator with seed 1; run seed 0 is a second, independent draw.
    for (const runSeed of ['1', '0']) {
      const r = await cli([
        '--methods',
        'cot,sc,reflexion,debate,ceo',
        '--axes',
        'depth:2,6,12,breadth:6,robustness:4',
        '--n',
        '20',
        '--seed',
        '0',
        '--run-seed',
        runSeed,
        '--backend',
        'simulated',
        '--out',
        `table-${runSeed}.json`,
        '--fresh',
      ]);
      expect(r.code, r.err).toBe(0);
      const doc = await readDoc(`table-${runSeed}.json`);
      expect(doc.rows).toHaveLength(5 * 5 * 20);
      const outside: string[] = [];
      for (const m of doc.summary.methods) {
        const expected = table.get(m.method) as number[];
        TABLE_CELLS.forEach(([axis, value], i) => {
          const cell = m.perValue.find((p) => p.axis === axis && p.value === value);
          expect(cell?.n).toBe(20);
          const t = expected[i] as number;
          if (!cell || t < cell.ci95[0] - 1e-9 || t > cell.ci95[1] + 1e-9)
            outside.push(
              `${m.method} ${axis} ${value}: table ${t}, eval ${cell?.accuracy} [${cell?.ci95.join(', ')}]`,
            );
        });
      }
      // 25 cells, each a 95% interval: if eval and table agree, the number outside is
      // Binomial(25, 0.05) (mean 1.25); more than 3 happens with probability 0.034.
      expect(outside.length, outside.join('\n')).toBeLessThanOrEqual(3);
    }
  }, 120_000);

  it('writes CSV, JSONL and traces, reports an orchestrator as unavailable and runs the prior policy and a design file', async () => {
    await writeFile(
      join(dir, 'design.json'),
      JSON.stringify({
        dom: 'high',
        agents: [
          { id: 'A', type: 'CoTAgent', description: '', input: '' },
          { id: 'B', type: 'ReflexionAgent', description: '', input: 'Check ${A}.' },
        ],
        edges: [{ from: 'A', to: 'B' }],
      }),
    );
    const r = await cli([
      '--methods',
      'cot,policy:prior,design:design.json,orchestrator:qwen-0.5b',
      '--axes',
      'depth:3,parallel:3',
      '--n',
      '3',
      '--seed',
      '5',
      '--backend',
      'simulated',
      '--out',
      'small.json',
      '--csv',
      'small.csv',
      '--jsonl',
      'small.jsonl',
      '--traces',
      'tr',
      '--fresh',
    ]);
    expect(r.code, r.err).toBe(0);
    const doc = await readDoc('small.json');
    expect(doc.rows).toHaveLength(3 * 2 * 3);
    const orch = doc.summary.methods.find((m) => m.method === 'orchestrator:qwen-0.5b');
    expect(orch?.available).toBe(false);
    expect(orch?.overall.n).toBe(0);
    expect(r.out).toMatch(/orchestrator:qwen-0.5b: not run/);
    const policyRows = doc.rows.filter((x) => x.method === 'policy:prior:greedy');
    expect(policyRows).toHaveLength(6);
    expect(doc.rows.filter((x) => x.method === 'design:design.json').every((x) => x.agents === 2)).toBe(true);
    const csv = (await readFile(join(dir, 'small.csv'), 'utf8')).trim().split('\n');
    expect(csv).toHaveLength(1 + 18);
    expect((await readFile(join(dir, 'small.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(18);
    const files = await readdir(join(dir, 'tr'));
    expect(files.sort()).toEqual(doc.rows.map((x) => `${x.traceId}.json`).sort());
    const policyTrace = parseTraceJson(
      await readFile(join(dir, 'tr', `${policyRows[0]?.traceId}.json`), 'utf8'),
    );
    expect(policyTrace.ok && policyTrace.value.designer.kind).toBe('policy');
    expect(policyTrace.ok && policyTrace.value.construction.length).toBeGreaterThan(0);
  }, 60_000);

  it('refuses bad flags with a usage error', async () => {
    expect((await cli(['--methods', 'gpt', '--out', 'x.json'])).code).toBe(2);
    expect((await cli(['--methods', 'cot', '--axes', 'width:3', '--out', 'x.json'])).code).toBe(2);
    expect((await cli(['--methods', 'cot', '--tasks', 'f.jsonl', '--out', 'x.json'])).code).toBe(2);
  });
});

/** Tokens the server billed: usage of every chat request it answered (faulted ones bill nothing). */
function billed(requests: readonly RecordedRequest[]): number {
  let total = 0;
  for (const q of requests) {
    if (q.method !== 'POST' || !q.path.endsWith('/chat/completions') || q.fault !== undefined) continue;
    const body = q.body as ChatRequestBody;
    total += promptTokens(body.messages ?? []) + countTokens(defaultResponder(body));
  }
  return total;
}

describe('baton eval on a provider with faults and a budget', () => {
  it('stops at the budget, resumes without re-running finished tasks, and its totals are exact', async () => {
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ id: `q${i}`, query: `Add ${i} and ${i + 1}.`, answer: 2 * i + 1 }),
    );
    await writeFile(join(dir, 'sums.jsonl'), lines.join('\n') + '\n');
    process.env.BATON_EVAL_TEST_KEY = '';
    const base = [
      '--methods',
      'cot,sc',
      '--tasks',
      'sums.jsonl',
      '--backend',
      'openai',
      '--base-url',
      server.baseUrl,
      '--model',
      'test-model',
      '--api-key-env',
      'BATON_EVAL_TEST_KEY',
      '--jobs',
      '3',
      '--out',
      'prov.json',
      '--traces',
      'prov-traces',
    ];
    server.reset();
    server.setFaults({ rate: 0.2, seed: 7 });
    // All 24 jobs bill about 6,300 tokens; every call reserves its prompt + 1,024 completion tokens
    // first, so with 5 SC samples in flight the budget refuses calls once about 3,000 are spent.
    const budget = 9000;
    const first = await cli([...base, '--budget-tokens', String(budget)]);
    const bill1 = billed(server.requests);
    const faults1 = server.requests.filter((q) => q.fault !== undefined).length;
    expect(faults1).toBeGreaterThan(0);
    expect(first.code, first.err).toBe(3);
    const doc1 = await readDoc('prov.json');
    expect(doc1.complete).toBe(false);
    expect(doc1.stopped).toMatch(/^budget/);
    expect(doc1.rows.length).toBeGreaterThan(0);
    expect(doc1.rows.length).toBeLessThan(24);
    // The provider's bill is what the document accounts for (rows + stopped runs), and within the budget.
    expect(doc1.spend.tokens).toBe(bill1);
    expect(bill1).toBeLessThanOrEqual(budget);

    server.reset();
    server.setFaults({ rate: 0.2, seed: 8 });
    const second = await cli(base);
    const bill2 = billed(server.requests);
    expect(second.code, second.err).toBe(0);
    expect(second.err).toMatch(new RegExp(`resuming: ${doc1.rows.length} finished`));
    const doc2 = await readDoc('prov.json');
    expect(doc2.complete).toBe(true);
    expect(doc2.rows).toHaveLength(24);
    expect(new Set(doc2.rows.map((x) => x.key)).size).toBe(24);
    // Finished rows come over unchanged and none of their tasks reached the server again.
    for (const r of doc1.rows) expect(doc2.rows.find((x) => x.key === r.key)).toEqual(r);
    // Tasks both methods finished in the first run: no request of the second mentions them.
    const finishedBoth = [...new Set(doc1.rows.map((r) => r.taskId))].filter(
      (id) => doc1.rows.filter((r) => r.taskId === id).length === 2,
    );
    expect(finishedBoth.length).toBeGreaterThan(0);
    const queries = finishedBoth.map((id) => {
      const i = Number(id.slice(1));
      return `Add ${i} and ${i + 1}.`;
    });
    const again = server.requests.filter((q) => {
      const text = JSON.stringify((q.body as ChatRequestBody | undefined)?.messages ?? []);
      return queries.some((s) => text.includes(s));
    });
    expect(again).toHaveLength(0);
    const rowTokens = (d: EvalDocument, keys?: Set<string>): number =>
      d.rows.filter((r) => !keys || !keys.has(r.key)).reduce((s, r) => s + r.tokens, 0);
    const old = new Set(doc1.rows.map((r) => r.key));
    // This run billed exactly its new rows and its own stopped or retried attempts.
    expect(bill2).toBe(rowTokens(doc2, old) + doc2.spend.wastedTokens);
    // Totals: the summary adds up to the rows, and each row to its trace.
    const summed = doc2.summary.methods.reduce((s, m) => s + m.overall.totalTokens, 0);
    expect(summed).toBe(rowTokens(doc2));
    for (const r of doc2.rows.slice(0, 24)) {
      const t = parseTraceJson(await readFile(join(dir, 'prov-traces', `${r.traceId}.json`), 'utf8'));
      expect(t.ok && t.value.totals.promptTokens + t.value.totals.completionTokens).toBe(r.tokens);
    }
    expect(bill1 + bill2).toBe(rowTokens(doc2) + doc1.spend.wastedTokens + doc2.spend.wastedTokens);
  }, 120_000);
});
