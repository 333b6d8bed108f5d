/**
 * The input arrays that a WebGPU model's steps in flight hold, and spare arrays to copy into.
 *
 * A step keeps the inputs it was called with (a lost device runs it again with them), so an input
 * set while a step holds its array is written into a copy. Those copies were new arrays, about
 * twenty per minibatch update of the policy's trainer (218 KB): a typed array of that size costs the
 * host an allocation outside V8's heap and the garbage collector work. Here an array that no
 * unsettled step holds any more, and that is no longer the input's current one, becomes a spare of
 * its input, and the next copy of that input is written into it.
 */
type InputArray = Float32Array | Uint32Array;

/** Spares kept per input: with two steps in flight, one is being filled while one is held. */
const SPARES = 2;

export class HeldInputs {
  /** Unsettled steps holding each array. */
  private readonly holds = new Map<InputArray, number>();
  private readonly spares = new Map<number, InputArray[]>();
  /** Copies made into new arrays and into spares (benchmarks read them). */
  readonly counts = { fresh: 0, reused: 0 };

  /** A step holds the arrays of `data` until `release(data)`. */
  hold(data: ReadonlyMap<number, InputArray>): void {
    for (const a of data.values()) this.holds.set(a, (this.holds.get(a) ?? 0) + 1);
  }

  /**
   * The step that held `data` settled. An array no other step holds, and that is not its input's
   * array now (`current`), is kept as a spare of that input.
   */
  release(data: ReadonlyMap<number, InputArray>, current: (id: number) => InputArray | undefined): void {
    for (const [id, a] of data) {
      const n = (this.holds.get(a) ?? 1) - 1;
      if (n > 0) {
        this.holds.set(a, n);
        continue;
      }
      this.holds.delete(a);
      if (current(id) === a) continue;
      const list = this.spares.get(id) ?? [];
      if (list.length < SPARES && !list.includes(a)) list.push(a);
      this.spares.set(id, list);
    }
  }

  /** Whether an unsettled step holds `a` (then it must not be written in place). */
  held(a: InputArray): boolean {
    return this.holds.has(a);
  }

  /** A copy of input `id`'s array `a`: written into a spare of the same kind and length, else new. */
  copy(id: number, a: InputArray): InputArray {
    const list = this.spares.get(id);
    const spare = list?.pop();
    if (spare && spare.length === a.length && spare.constructor === a.constructor && !this.held(spare)) {
      spare.set(a as Uint32Array);
      this.counts.reused += 1;
      return spare;
    }
    this.counts.fresh += 1;
    return a.slice();
  }

  /** Spares kept for input `id` (tests). */
  sparesOf(id: number): number {
    return this.spares.get(id)?.length ?? 0;
  }
}
