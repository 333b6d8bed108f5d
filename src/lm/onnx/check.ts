/**
 * Explains why a `.onnx` file will not load. onnxruntime says only "Failed to load model because
 * protobuf parsing failed." (or "No graph was found in the protobuf." for an empty file) whatever
 * went wrong, so the app runs this on the bytes it downloaded and shows what it finds: an empty
 * file, an HTML or JSON page served instead of the model (a wrong URL, a login page), a Git LFS
 * pointer, a file cut short (the protobuf ends inside a field), bytes that are not protobuf, a
 * graph whose weights do not fill their declared shapes, or a model without the inputs and outputs
 * transformers.js feeds a GPT-2-style decoder. Pure; decoding copies the file once.
 */
import type onnxProto from 'onnx-proto';
import { problemOf } from '../../core/errors.ts';
import { fail, ok, type Problem, type Result } from '../../core/result.ts';
import { type TinyGptConfig, headDim } from '../spec.ts';
import { ioNames } from './gpt2.ts';
import { decodeModelProto, elemTypeOf, type Dim, type ElemType } from './writer.ts';

export interface OnnxValueSummary {
  readonly name: string;
  readonly type: ElemType | 'other';
  readonly shape: readonly Dim[];
}

export interface OnnxSummary {
  readonly bytes: number;
  readonly irVersion: number;
  readonly producer: string;
  readonly opsets: Readonly<Record<string, number>>;
  readonly inputs: readonly OnnxValueSummary[];
  readonly outputs: readonly OnnxValueSummary[];
  readonly nodes: number;
  readonly initializers: number;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface CheckOptions {
  /** Larger files are refused before decoding (default 2 GiB, protobuf's own limit). */
  readonly maxBytes?: number;
  /** When given, the inputs and outputs must be exactly the export's for this config. */
  readonly config?: TinyGptConfig;
}

const ELEM_BYTES: Record<ElemType, number> = { float32: 4, int64: 8, int8: 1, uint8: 1, bool: 1 };

const problem = (detail: string): Problem => problemOf('E_MODEL_ONNX', detail);

function sniffText(bytes: Uint8Array): string | null {
  const head = new TextDecoder('utf-8', { fatal: false })
    .decode(bytes.subarray(0, 200))
    .trimStart()
    .toLowerCase();
  if (head.startsWith('version https://git-lfs')) {
    return 'it is a Git LFS pointer, not the model: the file was stored with Git LFS and its content was not fetched';
  }
  if (head.startsWith('<!doctype') || head.startsWith('<html') || head.startsWith('<?xml')) {
    return 'it is an HTML or XML page, not a model: the address probably points to an error or login page';
  }
  if (head.startsWith('{') && /"(error|message|detail)"/.test(head)) {
    return 'it is a JSON message, not a model: the server probably answered with an error';
  }
  return null;
}

function numberOf(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'toNumber' in v && typeof v.toNumber === 'function')
    return Number(v.toNumber());
  return Number(v);
}

/** Decodes and checks `.onnx` bytes; the summary says what the file declares. */
export function checkOnnxModel(bytes: Uint8Array, opts: CheckOptions = {}): Result<OnnxSummary> {
  const maxBytes = opts.maxBytes ?? 2 ** 31 - 1;
  if (bytes.length === 0) return fail(problem('the file is empty (0 bytes)'));
  if (bytes.length > maxBytes)
    return fail(problem(`the file has ${bytes.length} bytes, more than ${maxBytes}`));
  const text = sniffText(bytes);
  if (text) return fail(problem(text));

  let m: ReturnType<typeof decodeModelProto>;
  try {
    m = decodeModelProto(bytes);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/index out of range/.test(msg)) {
      return fail(
        problem(
          `the file is cut short: it has ${bytes.length} bytes and its data runs past the end (an interrupted download or a size limit on the server?)`,
        ),
      );
    }
    return fail(problem(`the bytes are not an ONNX protobuf (${msg}); the file is damaged or not a model`));
  }
  const graph = m.graph;
  if (!graph || numberOf(m.irVersion) <= 0 || (graph.node?.length ?? 0) === 0) {
    return fail(problem('the protobuf holds no ONNX graph: the file is damaged, cut short or not a model'));
  }

  const problems: Problem[] = [];
  for (const t of graph.initializer ?? []) {
    const type = elemTypeOf(t.dataType ?? 0);
    if (!type) continue;
    const count = (t.dims ?? []).reduce<number>((a, d) => a * numberOf(d), 1);
    const stored =
      t.rawData && t.rawData.length > 0
        ? t.rawData.length / ELEM_BYTES[type]
        : type === 'float32'
          ? (t.floatData?.length ?? 0)
          : type === 'int64'
            ? (t.int64Data?.length ?? 0)
            : (t.int32Data?.length ?? 0);
    if (stored !== count && !t.externalData?.length) {
      problems.push(problem(`weight ${t.name ?? '?'} holds ${stored} values for a shape of ${count}`));
    }
  }

  const summarize = (v: onnxProto.onnx.IValueInfoProto): OnnxValueSummary => {
    const tt = v.type?.tensorType;
    return {
      name: v.name ?? '',
      type: elemTypeOf(tt?.elemType ?? 0) ?? 'other',
      shape: (tt?.shape?.dim ?? []).map((d) => (d.dimParam ? d.dimParam : numberOf(d.dimValue))),
    };
  };
  const initNames = new Set((graph.initializer ?? []).map((t) => t.name));
  const inputs = (graph.input ?? []).filter((v) => !initNames.has(v.name)).map(summarize);
  const outputs = (graph.output ?? []).map(summarize);

  // What transformers.js feeds a decoder with a KV cache, and what it reads back.
  const inputNames = inputs.map((i) => i.name);
  for (const need of ['input_ids', 'attention_mask']) {
    if (!inputNames.includes(need)) problems.push(problem(`the model has no input ${need}`));
  }
  if (!outputs.some((o) => o.name === 'logits')) problems.push(problem('the model has no output logits'));
  for (const i of inputs.filter((v) => v.name.startsWith('past_key_values.'))) {
    if (i.shape[0] !== 'batch_size') {
      problems.push(
        problem(`input ${i.name}'s first dimension must be named batch_size, not ${String(i.shape[0])}`),
      );
    }
    if (typeof i.shape[1] !== 'number' || typeof i.shape[3] !== 'number') {
      problems.push(
        problem(`input ${i.name} must have fixed head count and head size, has [${i.shape.join(', ')}]`),
      );
    }
  }
  if (opts.config) {
    const c = opts.config;
    const want = ioNames(c);
    const outputNames = outputs.map((o) => o.name);
    if (want.inputs.join() !== inputNames.join()) {
      problems.push(problem(`inputs are [${inputNames.join(', ')}], expected [${want.inputs.join(', ')}]`));
    }
    if (want.outputs.join() !== outputNames.join()) {
      problems.push(
        problem(`outputs are [${outputNames.join(', ')}], expected [${want.outputs.join(', ')}]`),
      );
    }
    const logits = outputs.find((o) => o.name === 'logits');
    if (logits && logits.shape[2] !== c.vocabSize) {
      problems.push(
        problem(`logits have ${String(logits.shape[2])} entries per token, the config says ${c.vocabSize}`),
      );
    }
    const past = inputs.find((i) => i.name === 'past_key_values.0.key');
    if (past && (past.shape[1] !== c.nHead || past.shape[3] !== headDim(c))) {
      problems.push(
        problem(
          `the cache has ${String(past.shape[1])} heads of ${String(past.shape[3])}, the config says ${c.nHead} of ${headDim(c)}`,
        ),
      );
    }
  }
  if (problems.length > 0) return fail(...problems);

  return ok({
    bytes: bytes.length,
    irVersion: numberOf(m.irVersion),
    producer: m.producerName ?? '',
    opsets: Object.fromEntries((m.opsetImport ?? []).map((o) => [o.domain ?? '', numberOf(o.version)])),
    inputs,
    outputs,
    nodes: graph.node?.length ?? 0,
    initializers: graph.initializer?.length ?? 0,
    metadata: Object.fromEntries((m.metadataProps ?? []).map((p) => [p.key ?? '', p.value ?? ''])),
  });
}
