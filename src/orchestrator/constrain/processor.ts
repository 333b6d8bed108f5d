/**
 * The constraint as a transformers.js logits processor: `generate({ logits_processor: [p] })`.
 *
 * transformers.js calls processors synchronously with the whole sequence so far and the next-token
 * logits; the processor learns the token sampled at the previous step from the last id of
 * `input_ids` on the next call (the first call records the prompt length), feeds it to the
 * constraint, then masks. Batch size 1. The end token that finishes the design is sampled after the
 * last call, so `constraint.done` stays false after generate; `constraint.complete` is what to read.
 */
import { LogitsProcessor, type Tensor } from '@huggingface/transformers';
import type { DesignConstraint } from './engine.ts';

export class DesignLogitsProcessor extends LogitsProcessor {
  private seen = -1;

  constructor(readonly constraint: DesignConstraint) {
    super();
  }

  override _call(input_ids: bigint[][], logits: Tensor): Tensor {
    if (input_ids.length !== 1) throw new Error('DesignLogitsProcessor supports batch size 1.');
    const ids = input_ids[0] as bigint[];
    if (this.seen < 0) this.seen = ids.length;
    for (; this.seen < ids.length; this.seen++) this.constraint.accept(Number(ids[this.seen]));
    const row = (logits as unknown as Tensor[])[0] as Tensor;
    this.constraint.apply(row.data as Float32Array);
    return logits;
  }
}
