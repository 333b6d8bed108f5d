/**
 * `baton orchestrate` when the model takes low DoM's direct-answer branch: the CLI says so, runs no
 * agent, and the trace records branch `direct` with the answer as the final answer. The model is
 * the TEST FIXTURE of tests/e2e/orchestrate-direct-fixture.ts (the shipped v2 fine-tuned a few
 * steps on direct answers, built here in a scratch folder): the shipped v2 never takes the branch
 * on held-out tasks.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DIRECT_FIXTURE_ANSWER,
  writeDirectFixtureModel,
} from '../../../tests/e2e/orchestrate-direct-fixture.ts';
import { TraceSchema } from '../../core/trace.ts';
import { generateTask } from '../../masbench/index.ts';
import { orchestrateCommand } from './orchestrate.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-orchestrate-direct-'));
  await writeDirectFixtureModel(join(dir, 'model'));
}, 400_000);
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

describe('baton orchestrate on a direct answer', () => {
  it('says the model answered directly, runs no agent, and records branch direct', async () => {
    const out: string[] = [];
    const err: string[] = [];
    await writeFile(
      join(dir, 'task.json'),
      JSON.stringify(generateTask({ axis: 'depth', value: 3, seed: 7 })),
    );
    const code = await orchestrateCommand.run(
      ['--task', 'task.json', '--model', 'model', '--dom', 'low', '--dtype', 'fp32', '--out', 't.json'],
      {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        cwd: dir,
        now: () => new Date('2026-11-27T05:00:00Z'),
      },
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out).toContain(
      `design: answered directly, no sub-agent (valid, dom low, branch direct): ${DIRECT_FIXTURE_ANSWER}`,
    );
    expect(out.some((l) => l.startsWith('run: 0 calls, 0 tokens'))).toBe(true);
    const trace = TraceSchema.parse(JSON.parse(await readFile(join(dir, 't.json'), 'utf8')));
    expect(trace.designer).toMatchObject({ kind: 'orchestrator', branch: 'direct', valid: true });
    expect(trace.design).toMatchObject({
      dom: 'low',
      agents: [],
      edges: [],
      directAnswer: DIRECT_FIXTURE_ANSWER,
    });
    expect(trace.execution.status).toBe('completed');
    expect(trace.execution.events.filter((e) => e.type.startsWith('agent.'))).toEqual([]);
    expect(trace.totals.llmCalls).toBe(0);
    expect(trace.result.finalAnswer).toBe(DIRECT_FIXTURE_ANSWER);
    // The orchestrator's own tokens are in the designer record.
    expect(trace.designer.kind === 'orchestrator' && (trace.designer.timings?.tokens ?? 0)).toBeGreaterThan(
      0,
    );
  }, 120_000);
});
