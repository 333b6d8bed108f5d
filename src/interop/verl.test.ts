import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { generateTasks } from '../masbench/index.ts';
import { ORCHESTRATOR_PROMPT_VERSION, orchestratorSystemPrompt } from './orchestrator-prompt.ts';
import { VERL_COLUMNS, verlParquet, verlRows } from './verl.ts';

describe('verl dataset export', () => {
  const tasks = [
    ...generateTasks({ axis: 'depth', value: 4, baseSeed: 7, count: 6 }),
    ...generateTasks({ axis: 'parallel', value: 3, baseSeed: 8, count: 4 }),
  ];
  const rows = verlRows(tasks);
  const bytes = verlParquet(rows);

  it("writes verl's columns and reads back the same rows", async () => {
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const metadata = parquetMetadata(file);
    const schema = parquetSchema(metadata);
    // verl's expected columns (data preparation page): exactly these five, in this order.
    expect(schema.children.map((c) => c.element.name)).toEqual([...VERL_COLUMNS]);
    const prompt = schema.children[1]!;
    expect(prompt.element.converted_type).toBe('LIST');
    expect(prompt.children[0]!.children[0]!.children.map((c) => c.element.name)).toEqual(['role', 'content']);
    expect(schema.children[3]!.children.map((c) => c.element.name)).toEqual(['style', 'ground_truth']);
    expect(Number(metadata.num_rows)).toBe(tasks.length);

    const back = await parquetReadObjects({ file });
    expect(back).toHaveLength(tasks.length);
    const normalised = back.map((r) => ({
      ...r,
      extra_info: {
        ...(r.extra_info as Record<string, unknown>),
        seed: Number((r.extra_info as { seed: bigint }).seed),
      },
    }));
    expect(normalised).toEqual(rows);
  });

  it('fills the rows from the tasks: the orchestrator prompt, the answer, the axis, the graph', () => {
    const t = tasks[0]!;
    const r = rows[0]!;
    expect(r.data_source).toBe('baton/masbench');
    expect(r.ability).toBe('math');
    expect(r.prompt[0]).toEqual({ role: 'system', content: orchestratorSystemPrompt('high') });
    expect(r.prompt[1]!.content).toContain(t.question);
    expect(r.reward_model).toEqual({ style: 'rule', ground_truth: t.answers.join(', ') });
    expect(r.extra_info).toMatchObject({
      axis: 'depth',
      value: 4,
      seed: t.seed,
      split: t.split,
      task_id: t.id,
    });
    expect(JSON.parse(r.extra_info.subtask_graph)).toEqual(t.subtasks);
    expect(rows.map((x) => x.extra_info.index)).toEqual(rows.map((_, i) => i));
  });

  it('describes the archive and the XML design channels in the prompt', () => {
    const p = orchestratorSystemPrompt('high');
    for (const word of [
      'CoTAgent',
      'SCAgent',
      'DebateAgent',
      'ReflexionAgent',
      'CEOAgent',
      '<thinking>',
      '<agent>',
      '<edge>',
      '<agent_input>',
      '<debate_roles>',
    ]) {
      expect(p).toContain(word);
    }
    expect(orchestratorSystemPrompt('low')).toMatch(/at most one agent/);
    expect(ORCHESTRATOR_PROMPT_VERSION).toMatch(/\/1$/);
  });
});
