/**
 * A small typed builder for ONNX models over `onnx-proto` (the ONNX protobuf schema as protobufjs
 * code): graph inputs and outputs with symbolic dimensions, initializers, nodes with typed
 * attributes, opset imports. It knows nothing about transformers; `gpt2.ts` describes the tiny
 * model with it. Pure: values in, bytes out.
 *
 * Attributes are tagged (`{ i: 1 }`, `{ f: 0.5 }`) because a JavaScript number cannot say whether
 * it is an ONNX INT or FLOAT. Tensor data is written as `raw_data`, little-endian, as ONNX asks.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** Element types the exports use, named as onnxruntime names them. */
export type ElemType = 'float32' | 'int64' | 'int8' | 'uint8' | 'bool';

const DATA_TYPE: Record<ElemType, number> = {
  float32: onnx.TensorProto.DataType.FLOAT,
  int64: onnx.TensorProto.DataType.INT64,
  int8: onnx.TensorProto.DataType.INT8,
  uint8: onnx.TensorProto.DataType.UINT8,
  bool: onnx.TensorProto.DataType.BOOL,
};

export const elemTypeOf = (code: number): ElemType | undefined =>
  (Object.keys(DATA_TYPE) as ElemType[]).find((k) => DATA_TYPE[k] === code);

/** A dimension: a fixed size, or a name shared by every dimension that must be equal. */
export type Dim = number | string;

export interface ValueInfo {
  readonly name: string;
  readonly type: ElemType;
  readonly shape: readonly Dim[];
}

export type TensorData = Float32Array | BigInt64Array | Int8Array | Uint8Array;

export interface Tensor {
  readonly name: string;
  readonly type: ElemType;
  readonly dims: readonly number[];
  readonly data: TensorData;
}

export type Attribute =
  | { readonly i: number }
  | { readonly f: number }
  | { readonly s: string }
  | { readonly ints: readonly number[] }
  | { readonly t: Tensor };

export interface Node {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name: string;
  /** Empty for the standard domain; `com.microsoft` for onnxruntime's contrib ops. */
  readonly domain: string;
  readonly attrs: Readonly<Record<string, Attribute>>;
}

export interface OnnxModel {
  readonly graphName: string;
  readonly inputs: readonly ValueInfo[];
  readonly outputs: readonly ValueInfo[];
  readonly initializers: readonly Tensor[];
  readonly nodes: readonly Node[];
  /** Domain → opset version; '' is the standard domain. */
  readonly opsets: Readonly<Record<string, number>>;
  readonly producer: string;
  /** Key–value strings stored in the model's metadata_props. */
  readonly metadata: Readonly<Record<string, string>>;
}

/** IR version 8 (ONNX 1.10): what `onnx-proto` describes and every onnxruntime since 1.10 reads. */
export const IR_VERSION = 8;

const byteCount = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

/**
 * Collects a graph. `node` names its outputs itself (`<op>_<n>`) unless told, so a graph reads as
 * a sequence of expressions; `constI64` and `constF32` add small constant initializers.
 */
export class GraphBuilder {
  private readonly nodes: Node[] = [];
  private readonly inits: Tensor[] = [];
  private readonly ins: ValueInfo[] = [];
  private readonly outs: ValueInfo[] = [];
  private readonly names = new Set<string>();
  private readonly domains = new Set<string>();
  private counter = 0;

  constructor(private readonly graphName: string) {}

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`ONNX graph already has a value named ${name}`);
    this.names.add(name);
    return name;
  }

  input(name: string, type: ElemType, shape: readonly Dim[]): string {
    this.ins.push({ name: this.claim(name), type, shape });
    return name;
  }

  /** Declares `value` (already produced by a node) a graph output. */
  output(name: string, type: ElemType, shape: readonly Dim[]): void {
    if (!this.names.has(name)) throw new Error(`ONNX graph output ${name} is not produced by any node`);
    this.outs.push({ name, type, shape });
  }

  init(name: string, type: ElemType, dims: readonly number[], data: TensorData): string {
    if (data.length !== byteCount(dims)) {
      throw new Error(`initializer ${name} has ${data.length} values for dims [${dims.join(', ')}]`);
    }
    this.inits.push({ name: this.claim(name), type, dims, data });
    return name;
  }

  constI64(values: readonly number[], scalar = false): string {
    const name = `const_i64_${this.counter++}`;
    return this.init(name, 'int64', scalar ? [] : [values.length], BigInt64Array.from(values.map(BigInt)));
  }

  constF32(values: readonly number[], scalar = false): string {
    const name = `const_f32_${this.counter++}`;
    return this.init(name, 'float32', scalar ? [] : [values.length], Float32Array.from(values));
  }

  /** Adds a node with one output and returns the output's name. */
  node(
    op: string,
    inputs: readonly string[],
    attrs: Record<string, Attribute> = {},
    opts: { output?: string; domain?: string } = {},
  ): string {
    const outputs = opts.output === undefined ? undefined : [opts.output];
    const [out] = this.nodeN(op, inputs, 1, attrs, { outputs, domain: opts.domain });
    return out as string;
  }

  /** Adds a node with `n` outputs and returns their names. */
  nodeN(
    op: string,
    inputs: readonly string[],
    n: number,
    attrs: Record<string, Attribute> = {},
    opts: { outputs?: readonly string[]; domain?: string } = {},
  ): string[] {
    for (const i of inputs) {
      if (i !== '' && !this.names.has(i))
        throw new Error(`ONNX node ${op} reads ${i}, which does not exist yet`);
    }
    const id = this.counter++;
    const outputs = opts.outputs
      ? [...opts.outputs]
      : Array.from({ length: n }, (_, k) => `${op}_${id}${n > 1 ? `_${k}` : ''}`);
    outputs.forEach((o) => this.claim(o));
    const domain = opts.domain ?? '';
    if (domain !== '') this.domains.add(domain);
    this.nodes.push({ op, inputs, outputs, name: `${op}_${id}`, domain, attrs });
    return outputs;
  }

  /** The finished model; `opsets` must name every non-standard domain the nodes use. */
  build(opts: {
    opsets: Record<string, number>;
    producer: string;
    metadata?: Record<string, string>;
  }): OnnxModel {
    for (const d of this.domains) {
      if (!(d in opts.opsets)) throw new Error(`ONNX graph uses domain ${d} without an opset import`);
    }
    return {
      graphName: this.graphName,
      inputs: [...this.ins],
      outputs: [...this.outs],
      initializers: [...this.inits],
      nodes: [...this.nodes],
      opsets: { ...opts.opsets },
      producer: opts.producer,
      metadata: { ...(opts.metadata ?? {}) },
    };
  }
}

function rawBytes(data: TensorData): Uint8Array {
  // ONNX raw_data is little-endian; every platform a browser or Node runs on is too.
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

const tensorProto = (t: Tensor): onnxProto.onnx.ITensorProto => ({
  name: t.name,
  dataType: DATA_TYPE[t.type],
  dims: [...t.dims],
  rawData: rawBytes(t.data),
});

const valueInfo = (v: ValueInfo): onnxProto.onnx.IValueInfoProto => ({
  name: v.name,
  type: {
    tensorType: {
      elemType: DATA_TYPE[v.type],
      shape: { dim: v.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
    },
  },
});

const text = new TextEncoder();
const AT = onnx.AttributeProto.AttributeType;

function attribute(name: string, a: Attribute): onnxProto.onnx.IAttributeProto {
  if ('i' in a) return { name, type: AT.INT, i: a.i };
  if ('f' in a) return { name, type: AT.FLOAT, f: a.f };
  if ('s' in a) return { name, type: AT.STRING, s: text.encode(a.s) };
  if ('ints' in a) return { name, type: AT.INTS, ints: [...a.ints] };
  return { name, type: AT.TENSOR, t: tensorProto(a.t) };
}

/** The model as ONNX protobuf bytes (a `.onnx` file). */
export function encodeModel(m: OnnxModel): Uint8Array {
  const proto: onnxProto.onnx.IModelProto = {
    irVersion: IR_VERSION,
    producerName: m.producer,
    opsetImport: Object.entries(m.opsets).map(([domain, version]) => ({ domain, version })),
    metadataProps: Object.entries(m.metadata).map(([key, value]) => ({ key, value })),
    graph: {
      name: m.graphName,
      input: m.inputs.map(valueInfo),
      output: m.outputs.map(valueInfo),
      initializer: m.initializers.map(tensorProto),
      node: m.nodes.map((n) => ({
        name: n.name,
        opType: n.op,
        domain: n.domain,
        input: [...n.inputs],
        output: [...n.outputs],
        attribute: Object.entries(n.attrs).map(([k, a]) => attribute(k, a)),
      })),
    },
  };
  const out = onnx.ModelProto.encode(proto).finish();
  // protobufjs gives a Node Buffer in Node, whose slice() is a view: hand back a plain Uint8Array.
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Decodes `.onnx` bytes; throws protobufjs' error when they are not a ModelProto. */
export const decodeModelProto = (bytes: Uint8Array): onnxProto.onnx.ModelProto =>
  onnx.ModelProto.decode(bytes);
