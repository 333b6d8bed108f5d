import { parquetWriteBuffer } from 'hyparquet-writer';
import type { MasBenchTask } from '../masbench/index.ts';
import { orchestratorMessages, type DegreeOfMas } from './orchestrator-prompt.ts';

/**
 * MASBench task sets as verl RL datasets (Parquet). verl's data preparation page
 * (verl.readthedocs.io, "Prepare Data for Post-Training") asks for five columns:
 *
 *   data_source   string          which reward function scores the row (`baton/masbench`)
 *   prompt        list<struct>    chat messages {role, content}; verl applies the chat template
 *   ability       string          a task category (`math`)
 *   reward_model  struct          {style: "rule", ground_truth}: the final answer, as a string
 *   extra_info    struct          anything else: here index, split, axis, value, seed, task id,
 *                                 modulus, asked sub-tasks and the sub-task graph (JSON text)
 *
 * The prompt is the orchestrator's (orchestrator-prompt.ts): the model learns to write a MAS
 * design, and a reward function runs the design and checks `ground_truth` (see docs/interop.md).
 * Written with hyparquet-writer (pure JavaScript, no native code) with an explicit nested schema,
 * the shape pyarrow writes for a list of structs. Pure: rows in, bytes out.
 */

export const VERL_DATA_SOURCE = 'baton/masbench';
export const VERL_COLUMNS = ['data_source', 'prompt', 'ability', 'reward_model', 'extra_info'] as const;

export interface VerlRow {
  data_source: string;
  prompt: { role: string; content: string }[];
  ability: string;
  reward_model: { style: 'rule'; ground_truth: string };
  extra_info: {
    index: number;
    split: string;
    axis: string;
    value: number;
    seed: number;
    task_id: string;
    modulus: number;
    /** JSON: the asked sub-task ids, in the order of the answers in `ground_truth`. */
    asks: string;
    /** JSON: every sub-task `{id, question, deps, answer, note?}`: the sub-task graph. */
    subtask_graph: string;
  };
}

export interface VerlOptions {
  dom?: DegreeOfMas;
  dataSource?: string;
}

/** One verl row per task. */
export function verlRows(tasks: readonly MasBenchTask[], o: VerlOptions = {}): VerlRow[] {
  return tasks.map((t, index) => ({
    data_source: o.dataSource ?? VERL_DATA_SOURCE,
    prompt: orchestratorMessages(t.question, o.dom ?? 'high'),
    ability: 'math',
    reward_model: { style: 'rule', ground_truth: t.answers.join(', ') },
    extra_info: {
      index,
      split: t.split,
      axis: t.axis,
      value: t.value,
      seed: t.seed,
      task_id: t.id,
      modulus: t.modulus,
      asks: JSON.stringify(t.asks),
      subtask_graph: JSON.stringify(t.subtasks),
    },
  }));
}

const str = (name: string) =>
  ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' }) as const;
const int = (name: string, type: 'INT32' | 'INT64') => ({ name, type, repetition_type: 'REQUIRED' }) as const;

/** The Parquet schema, flattened depth-first as Parquet's footer stores it. */
export const VERL_SCHEMA = [
  { name: 'root', num_children: 5 },
  str('data_source'),
  { name: 'prompt', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', repetition_type: 'REQUIRED', num_children: 2 },
  str('role'),
  str('content'),
  str('ability'),
  { name: 'reward_model', repetition_type: 'REQUIRED', num_children: 2 },
  str('style'),
  str('ground_truth'),
  { name: 'extra_info', repetition_type: 'REQUIRED', num_children: 9 },
  int('index', 'INT32'),
  str('split'),
  str('axis'),
  int('value', 'INT32'),
  int('seed', 'INT64'),
  str('task_id'),
  int('modulus', 'INT32'),
  str('asks'),
  str('subtask_graph'),
] as const;

/** The rows as a Parquet file. */
export function verlParquet(rows: readonly VerlRow[]): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'data_source', data: rows.map((r) => r.data_source) },
      { name: 'prompt', data: rows.map((r) => r.prompt) },
      { name: 'ability', data: rows.map((r) => r.ability) },
      { name: 'reward_model', data: rows.map((r) => r.reward_model) },
      // INT64 columns take bigints.
      { name: 'extra_info', data: rows.map((r) => ({ ...r.extra_info, seed: BigInt(r.extra_info.seed) })) },
    ],
    schema: VERL_SCHEMA.map((e) => ({ ...e })),
    kvMetadata: [
      { key: 'baton.verl', value: 'MASBench tasks with the orchestrator prompt (docs/interop.md)' },
    ],
    createdBy: 'baton',
  });
  return new Uint8Array(buffer);
}
