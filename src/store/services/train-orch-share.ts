/**
 * A run of the Train page's "Orchestrator LM" mode as a share link and back. The link has the same
 * form as a construction-policy run's (`#r=1.…`, services/train-share.ts): the same byte layer,
 * budget and secret removal (src/share `encodeJsonLink`), told apart by the record's `format`
 * (`baton.orchrun/1`, src/train orchestrator-record.ts). Pure: the slice hands it the run and shows
 * what comes back.
 *
 * A link that does not fit the budget first loses the sampled designs' text, then the designs; the
 * record says what it left out. The trained weights never ride along: `weightsNote` says how far
 * past the budget they are, so the page never leaves them out silently.
 */
import { problemOf } from '../../core/errors.ts';
import type { Result } from '../../core/result.ts';
import { decodeJsonLink, encodeJsonLink, LINK_BUDGET_CHARS } from '../../share/index.ts';
import {
  orchRunRecord,
  parseOrchRunRecord,
  q8WeightChars,
  type OrchRecordInput,
  type OrchRunRecord,
} from '../../train/orchestrator-record.ts';
import { RUN_LINK_PARAM } from './train-share.ts';

export interface OrchWeightsInLink {
  params: number;
  /** Characters the 8-bit weights would add (base64, before compression). */
  chars: number;
  /** How far the link with them would be past the budget (≤ 0: it would fit). */
  overBy: number;
  budget: number;
}

export interface OrchRunLink {
  /** The whole address: base + `#r=1.…`. */
  url: string;
  chars: number;
  /** Even with the designs left out the link is longer than the budget. */
  overBudget: boolean;
  iterations: number;
  omitted: OrchRunRecord['omitted'];
  weights: OrchWeightsInLink;
}

const TRIES: readonly (readonly ('sample-text' | 'samples')[])[] = [
  [],
  ['sample-text'],
  ['sample-text', 'samples'],
];

/** What the 8-bit weights would do to a link of `linkChars` characters. */
export function weightsInLink(
  params: number,
  linkChars: number,
  budget = LINK_BUDGET_CHARS,
): OrchWeightsInLink {
  const chars = q8WeightChars(params);
  return { params, chars, overBy: linkChars + chars - budget, budget };
}

/** The share link of a run; `base` is the page's address (its fragment is dropped). */
export function buildOrchRunLink(
  input: Omit<OrchRecordInput, 'omit'>,
  base: string,
  budget = LINK_BUDGET_CHARS,
): Result<OrchRunLink> {
  const at = base.indexOf('#');
  const root = at >= 0 ? base.slice(0, at) : base;
  let link: OrchRunLink | null = null;
  for (const omit of TRIES) {
    const r = orchRunRecord({ ...input, omit });
    if (!r.ok) return { ok: false, errors: [problemOf('E_TRAIN_LINK', r.problems.join('; '))] };
    const url = root + encodeJsonLink(r.record, RUN_LINK_PARAM).fragment;
    link = {
      url,
      chars: url.length,
      overBudget: url.length > budget,
      iterations: r.record.iterations,
      omitted: r.record.omitted,
      weights: weightsInLink(input.model.params, url.length, budget),
    };
    if (!link.overBudget) break;
  }
  return { ok: true, value: link as OrchRunLink, warnings: [] };
}

/** Why the weights are not in the link, in numbers. */
export function weightsNote(w: OrchWeightsInLink): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  if (w.overBy <= 0)
    return `Weights not in the link: links of orchestrator runs carry no weights (as 8-bit values they would add ${n(w.chars)} characters).`;
  return `Weights not in the link: as 8-bit values the ${n(w.params)} parameters take ${n(w.chars)} characters (one byte each, base64, before compression), ${n(w.overBy)} over the link budget of ${n(w.budget)} characters.`;
}

/**
 * Reads `#r=1.…` (or a full address) as an orchestrator run: the checked record, or what is wrong
 * with it as text; null when the link is not an orchestrator run's (a construction-policy run, or
 * unreadable: the policy run's reader reports that).
 */
export function readOrchRunLink(input: string): Result<OrchRunRecord> | null {
  const decoded = decodeJsonLink(input, RUN_LINK_PARAM);
  if (!decoded.ok) return null;
  const v = decoded.value;
  const format =
    typeof v === 'object' && v !== null && 'format' in v ? (v as { format: unknown }).format : null;
  if (typeof format !== 'string' || !format.startsWith('baton.orchrun/')) return null;
  const parsed = parseOrchRunRecord(v);
  if (!parsed.ok) return { ok: false, errors: [problemOf('E_TRAIN_LINK', parsed.problems.join('; '))] };
  return { ok: true, value: parsed.record, warnings: [] };
}
