/**
 * Links for documents other than traces (a training run's record, an evaluation's summary): the
 * same byte layer as trace links (codec.ts: UTF-8 JSON → raw DEFLATE with the v1 dictionary →
 * base64url) under another fragment parameter, `#<param>=1.<payload>`. What the JSON means is the
 * caller's business: `decodeJsonLink` returns the parsed value, which the caller checks with its
 * own schema before using it. Secrets are removed before encoding, as for traces.
 */
import { describe } from '../core/errors.ts';
import { fail, type Result } from '../core/result.ts';
import { compressText, decompressText, MAX_INFLATED_BYTES } from './codec.ts';
import { LINK_BUDGET_CHARS, LINK_VERSION, MAX_LINK_INPUT_CHARS } from './link.ts';
import { redactSecrets } from './redact.ts';

export interface JsonLink {
  /** `#<param>=1.<payload>` */
  fragment: string;
  chars: number;
  overBudget: boolean;
}

const PARAM = /^[a-z]{1,8}$/;

export function encodeJsonLink(value: unknown, param: string): JsonLink {
  if (!PARAM.test(param)) throw new Error(`link parameter "${param}" must be 1-8 lowercase letters`);
  const fragment = `#${param}=${LINK_VERSION}.${compressText(JSON.stringify(redactSecrets(value)))}`;
  return { fragment, chars: fragment.length, overBudget: fragment.length > LINK_BUDGET_CHARS };
}

const linkError = (detail: string): Result<never> =>
  fail({ code: 'E_LINK', message: describe('E_LINK', detail) });

/** Reads `#<param>=1.…` (a full URL, the fragment, or `<param>=1.…`) and parses its JSON. Never throws. */
export function decodeJsonLink(input: string, param: string): Result<unknown> {
  try {
    if (typeof input !== 'string') return linkError('expected the link as text');
    if (input.length > MAX_LINK_INPUT_CHARS)
      return fail({
        code: 'E_TOO_LARGE',
        message: describe(
          'E_TOO_LARGE',
          `the link is ${input.length} characters; the limit is ${MAX_LINK_INPUT_CHARS}`,
        ),
      });
    let s = input.trim();
    const hash = s.indexOf('#');
    if (hash >= 0) s = s.slice(hash + 1);
    const part = s.split('&').find((p) => p.startsWith(`${param}=`));
    if (part === undefined) return linkError(`the address has no "#${param}=" part`);
    const m = /^(\d{1,9})\.(.*)$/s.exec(part.slice(param.length + 1).replace(/\s+/g, ''));
    if (!m) return linkError(`the link has no format version (expected "#${param}=1.…")`);
    if (m[1] !== String(LINK_VERSION)) return linkError(`link format ${m[1]} is not one this Baton reads`);
    if ((m[2] ?? '') === '') return linkError('the link is empty after "1."; was it cut short?');
    const text = decompressText(m[2] ?? '', MAX_INFLATED_BYTES);
    if (!text.ok) return linkError(text.message);
    try {
      return { ok: true, value: JSON.parse(text.value) as unknown, warnings: [] };
    } catch (e) {
      return linkError(`its content is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  } catch (e) {
    return linkError(`internal error while reading the link (${e instanceof Error ? e.message : String(e)})`);
  }
}
