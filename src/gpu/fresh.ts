import { opInputs, type Graph } from './graph.ts';

/**
 * What a forward pass must run again, on the CPU backends (cpu/model.ts) and on WebGPU
 * (webgpu/model.ts, which dispatches the calls of stale ops only). Every node has a version,
 * raised whenever its value changes: an input set to other bits or other live rows, the parameters after an update or
 * `importState`, an op each time it runs. An op remembers the versions of the nodes it read when it
 * last ran, and is stale when it never ran or one of them has moved since. The marks are per edge
 * rather than one per node and pass, so a pass that runs only some nodes (`RunOptions.prune`)
 * leaves the others stale for a later pass, and a matmul can tell whether its weight moved since it
 * last ran (the CPU's shared-prefix cache, cpu/prefix.ts).
 */
export class Freshness {
  /** For every node of `graph`: inputs and parameters changed, ops never ran. */
  static of(graph: Graph): Freshness {
    return new Freshness(
      graph.nodes.map((n) => opInputs(n.op)),
      (id) => !['input', 'param'].includes(graph.node(id).op.kind),
    );
  }

  /** Per node; inputs and parameters start at 1, ops at 0 (never ran). */
  private readonly version: Uint32Array;
  /** Per edge (node, k-th node it reads): that node's version when this one last ran. */
  private readonly seen: Uint32Array;
  /** Per node: its first edge in `seen`. */
  private readonly first: Int32Array;

  constructor(
    private readonly deps: readonly (readonly number[])[],
    isOp: (id: number) => boolean,
  ) {
    this.version = Uint32Array.from(deps, (_, id) => (isOp(id) ? 0 : 1));
    this.first = new Int32Array(deps.length + 1);
    for (let id = 0; id < deps.length; id++)
      this.first[id + 1] = (this.first[id] as number) + (deps[id] as readonly number[]).length;
    this.seen = new Uint32Array(this.first[deps.length] as number);
  }

  /** The value of input or parameter `id` changed. */
  bump(id: number): void {
    this.version[id] = (this.version[id] as number) + 1;
  }

  /** Op `id` never ran, or a node it reads changed since it last ran. */
  stale(id: number): boolean {
    if (this.version[id] === 0) return true;
    const ds = this.deps[id] as readonly number[];
    const at = this.first[id] as number;
    for (let k = 0; k < ds.length; k++) if (this.seen[at + k] !== this.version[ds[k] as number]) return true;
    return false;
  }

  /** The k-th node op `id` reads changed since `id` last ran (or `id` never ran). */
  moved(id: number, k: number): boolean {
    const d = (this.deps[id] as readonly number[])[k] as number;
    return this.version[id] === 0 || this.seen[(this.first[id] as number) + k] !== this.version[d];
  }

  /** Op `id` has just run on the current values of what it reads. */
  ran(id: number): void {
    const ds = this.deps[id] as readonly number[];
    const at = this.first[id] as number;
    for (let k = 0; k < ds.length; k++) this.seen[at + k] = this.version[ds[k] as number] as number;
    this.bump(id);
  }
}
