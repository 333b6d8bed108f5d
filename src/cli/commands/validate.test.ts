import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../command.ts';
import { validateCommand } from './validate.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-validate-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const agentXml = (id: string, type: string, input = '', roles = ''): string =>
  `<agent><agent_id>${id}</agent_id><agent_name>${type}</agent_name>` +
  `<agent_description>agent ${id}</agent_description><required_arguments>` +
  `<agent_input>${input}</agent_input>${roles}</required_arguments></agent>`;

const VALID_XML =
  '<thinking>two solvers, then a judge</thinking>' +
  agentXml('a', 'CoTAgent') +
  agentXml('b', 'SCAgent') +
  agentXml('judge', 'DebateAgent', 'Pick: ${a} or ${b}', '<debate_roles>["X", "Y"]</debate_roles>') +
  '<edge><from>a</from><to>judge</to><from>b</from><to>judge</to></edge>';

const write = (name: string, text: string) => writeFile(join(dir, name), text);

describe('baton validate', () => {
  it('accepts a valid XML design', async () => {
    await write('d.xml', VALID_XML);
    expect(await validateCommand.run(['d.xml'], io)).toBe(0);
    expect(out).toEqual(['valid: 3 agents, 2 edges']);
    expect(err).toEqual([]);
  });

  it('accepts a valid JSON design', async () => {
    await write(
      'd.json',
      JSON.stringify({
        format: 'baton.design/1',
        agents: [
          { id: 'x', type: 'CoTAgent' },
          { id: 'y', type: 'ReflexionAgent', input: 'check ${x}' },
        ],
        edges: [{ from: 'x', to: 'y' }],
      }),
    );
    expect(await validateCommand.run(['d.json'], io)).toBe(0);
    expect(out).toEqual(['valid: 2 agents, 1 edge']);
  });

  it('prints every broken rule and exits 1', async () => {
    // A cycle (rule 6), a self-loop (rule 7), an unknown type (rule 2), a missing reference (rule 9).
    const xml =
      agentXml('a', 'MagicAgent', '${b}') +
      agentXml('b', 'CoTAgent', '${a}') +
      '<edge><from>a</from><to>b</to><from>b</from><to>a</to><from>a</from><to>a</to></edge>';
    await write('bad.xml', xml);
    expect(await validateCommand.run(['bad.xml'], io)).toBe(1);
    const rules = out.filter((l) => l.startsWith('rule ')).map((l) => Number(/^rule (\d+)/.exec(l)?.[1]));
    expect(rules).toEqual(expect.arrayContaining([2, 6, 7]));
    expect(out[out.length - 1]).toMatch(/^invalid: \d+ problems in bad\.xml$/);
  });

  it('--dom low rejects a multi-agent design', async () => {
    await write('d.xml', VALID_XML);
    expect(await validateCommand.run(['d.xml', '--dom', 'low'], io)).toBe(1);
    expect(out.some((l) => l.startsWith('rule 12:'))).toBe(true);
  });

  it('reports unreadable JSON as a parse error', async () => {
    await write('d.json', '{"agents": [');
    expect(await validateCommand.run(['d.json'], io)).toBe(1);
    expect(out[0]).toMatch(/^parse error: /);
  });

  it('reports a missing file on stderr with exit 1', async () => {
    expect(await validateCommand.run(['nope.xml'], io)).toBe(1);
    expect(err[0]).toMatch(/cannot read/);
  });

  it.each([[[]], [['a.xml', 'b.xml']], [['a.xml', '--dom', 'medium']], [['a.xml', '--strict']]])(
    'usage error %j exits 2',
    async (args) => {
      expect(await validateCommand.run(args, io)).toBe(2);
      expect(err.join('\n')).toContain('Usage:');
    },
  );
});
