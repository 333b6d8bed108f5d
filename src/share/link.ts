import { describe } from '../core/errors.ts';
import { parseTraceValue } from '../core/parse-trace.ts';
import { fail, type Result } from '../core/result.ts';
import { TraceSchema, type Trace } from '../core/trace.ts';
import { compressText, decompressText, MAX_INFLATED_BYTES } from './codec.ts';
import { redactSecrets } from './redact.ts';
import { trimTrace, type TrimCount } from './trim.ts';

/**
 * Share links: `#t=<link format version>.<payload>`. The link format version says how the payload
 * is encoded (compression, preset dictionary); the trace inside carries its own
 * `baton.trace/N` version and goes through the trace migrations like any file. docs/share-links.md
 * has the rules.
 */
export const LINK_VERSION = 1;

/**
 * Longest fragment (`#t=…`, in characters) a link should have. The fragment never reaches a
 * server, so HTTP request-line limits do not apply; what limits a link is where people paste it.
 * 32,000 fits in a Slack message (40,000), a GitHub comment (65,536) and every current browser's
 * address bar, with room for the base URL. See docs/share-links.md.
 */
export const LINK_BUDGET_CHARS = 32_000;

/** Longest input `decodeTraceLink` looks at: twice Chromium's 2 MB URL limit. */
export const MAX_LINK_INPUT_CHARS = 4_000_000;

export interface EncodedLink {
  /** `#t=1.…`, ready to append to the app's URL. */
  fragment: string;
  /** The base64url data after `<version>.`. */
  payload: string;
  /** Length of `fragment`. */
  chars: number;
  overBudget: boolean;
  /** What trimming cut from this link; null when nothing was cut. */
  trimmed: TrimCount | null;
  /**
   * The trace's rendered diagram when this link leaves it out; null when the link carries it or
   * the trace has none. `onlyRecordOfDesign`: the trace has no agents (`designOnlyInDiagram`), so
   * whoever opens the link sees no design at all — the file, not the link, is the way to share it.
   */
  droppedDiagram: { chars: number; onlyRecordOfDesign: boolean } | null;
}

export interface EncodeOptions {
  /** Cut outputs, messages and other long texts to this many characters (see trim.ts). */
  trimOutputsTo?: number;
  /** When trimming, keep the rendered diagram instead of dropping it (default false). */
  keepDiagram?: boolean;
}

/**
 * True when the trace's design exists only as the source tool's rendered diagram: it has a
 * diagram, but no agents and no direct answer (MAS-Orchestra case slides tagged
 * `design-in-diagram-only`). The viewer cannot redraw such a design, so a link without the
 * diagram carries no design.
 */
export function designOnlyInDiagram(trace: Trace): boolean {
  return (
    trace.diagram !== undefined && trace.design.agents.length === 0 && trace.design.directAnswer === undefined
  );
}

/**
 * Encodes a trace as a link: secrets removed, optionally trimmed, serialised in the schema's key
 * order (the order the v1 dictionary was written for), compressed. Decoding gives back a trace
 * deep-equal to the redacted (and trimmed) input.
 */
export function encodeTraceLink(trace: Trace, opts: EncodeOptions = {}): EncodedLink {
  let value = redactSecrets(trace);
  let trimmed: TrimCount | null = null;
  if (opts.trimOutputsTo !== undefined) {
    const max = Number.isFinite(opts.trimOutputsTo) ? Math.max(0, Math.floor(opts.trimOutputsTo)) : 0;
    const cut = trimTrace(value, max, { keepDiagram: opts.keepDiagram === true });
    value = cut.trace;
    trimmed = cut.count;
  }
  const droppedDiagram =
    trace.diagram !== undefined && value.diagram === undefined
      ? { chars: trace.diagram.length, onlyRecordOfDesign: designOnlyInDiagram(trace) }
      : null;
  // The schema's parse gives every object its keys in schema order; a value that does not parse
  // (the caller bypassed the type) is encoded as it is and the reader will explain what is wrong.
  const canonical = TraceSchema.safeParse(value);
  const json = JSON.stringify(canonical.success ? canonical.data : value);
  const payload = compressText(json);
  const fragment = `#t=${LINK_VERSION}.${payload}`;
  return {
    fragment,
    payload,
    chars: fragment.length,
    overBudget: fragment.length > LINK_BUDGET_CHARS,
    trimmed,
    droppedDiagram,
  };
}

/** Trim lengths tried in turn, longest first, until a link fits the budget. */
const TRIM_STEPS = [16_000, 8_000, 4_000, 2_000, 1_000, 500, 250, 120, 60, 0];

/**
 * The most complete link that fits the budget: untrimmed when possible, otherwise the longest
 * trim length that fits (found by stepping down, then bisecting between the last two steps). When
 * even trimming everything does not fit, the smallest link found, with `overBudget` set.
 *
 * Trimming drops the rendered diagram, except when it is the only record of the design
 * (`designOnlyInDiagram`): then texts are trimmed with the diagram kept first, and the diagram is
 * dropped only when no such link fits (`droppedDiagram` says so).
 */
export function smallestLink(trace: Trace): EncodedLink {
  const full = encodeTraceLink(trace);
  if (!full.overBudget) return full;
  // Base64 PNG data hardly compresses, so a diagram longer than the budget cannot fit.
  if (designOnlyInDiagram(trace) && (trace.diagram?.length ?? 0) < LINK_BUDGET_CHARS) {
    const keeping = fitByTrimming(trace, full, true);
    if (!keeping.overBudget) return keeping;
  }
  return fitByTrimming(trace, full, false);
}

/** The longest trim that fits, or the smallest link found (at worst `full`). */
function fitByTrimming(trace: Trace, full: EncodedLink, keepDiagram: boolean): EncodedLink {
  let best = full;
  let tooLong = Infinity;
  for (const n of TRIM_STEPS) {
    const link = encodeTraceLink(trace, { trimOutputsTo: n, keepDiagram });
    if (link.chars < best.chars) best = link;
    if (!link.overBudget) return refine(trace, n, tooLong, link, keepDiagram);
    tooLong = n;
  }
  return best;
}

/** Bisects between a trim length that fits (`lo`) and one that does not (`hi`), a few rounds. */
function refine(trace: Trace, lo: number, hi: number, fits: EncodedLink, keepDiagram: boolean): EncodedLink {
  if (!Number.isFinite(hi)) return fits;
  let best = fits;
  for (let round = 0; round < 5 && hi - lo > 50; round++) {
    const mid = Math.floor((lo + hi) / 2);
    const link = encodeTraceLink(trace, { trimOutputsTo: mid, keepDiagram });
    if (link.overBudget) hi = mid;
    else {
      lo = mid;
      best = link;
    }
  }
  return best;
}

/** `baseUrl` with its fragment replaced by the link's. */
export function shareUrl(baseUrl: string, link: EncodedLink): string {
  const hash = baseUrl.indexOf('#');
  return (hash >= 0 ? baseUrl.slice(0, hash) : baseUrl) + link.fragment;
}

const linkError = (detail: string) => fail({ code: 'E_LINK', message: describe('E_LINK', detail) });

/**
 * Finds `<version>.<payload>` in what a person pasted: a full URL, `#t=…`, `t=…`, or the bare
 * `1.payload`. Whitespace (from line-wrapping mail clients) and surrounding quotes or angle
 * brackets are ignored.
 */
function extractVersioned(input: string): Result<string> {
  let s = input.trim().replace(/^[<"'`]+|[>"'`]+$/g, '');
  const hash = s.indexOf('#');
  if (hash >= 0) s = s.slice(hash + 1);
  if (/^\d+\./.test(s.trimStart())) return { ok: true, value: s.replace(/\s+/g, ''), warnings: [] };
  const param = s.split('&').find((p) => p.trimStart().startsWith('t='));
  if (param === undefined) {
    return linkError(
      hash >= 0 ? 'the address has no "#t=" part' : 'expected a link with "#t=…" or a payload like "1.…"',
    );
  }
  return { ok: true, value: param.trimStart().slice(2).replace(/\s+/g, ''), warnings: [] };
}

/**
 * Opens a share link. Pure and offline: everything is in the link, nothing is fetched. Never
 * throws; every failure is an `E_LINK` (or `E_TOO_LARGE`, or the trace reader's own) problem.
 */
export function decodeTraceLink(input: string): Result<Trace> {
  try {
    return decode(input);
  } catch (e) {
    // Defensive: the steps above are written not to throw; if one does, report it, never crash.
    return linkError(`internal error while reading the link (${e instanceof Error ? e.message : String(e)})`);
  }
}

function decode(input: string): Result<Trace> {
  if (typeof input !== 'string') return linkError('expected the link as text');
  if (input.length > MAX_LINK_INPUT_CHARS) {
    return fail({
      code: 'E_TOO_LARGE',
      message: describe(
        'E_TOO_LARGE',
        `the link is ${input.length} characters; the limit is ${MAX_LINK_INPUT_CHARS}`,
      ),
    });
  }
  const versioned = extractVersioned(input);
  if (!versioned.ok) return versioned;
  const m = /^(\d{1,9})\.(.*)$/s.exec(versioned.value);
  if (!m) return linkError('the link has no format version (expected "#t=1.…")');
  const version = Number(m[1]);
  const payload = m[2] ?? '';
  if (version > LINK_VERSION) {
    return linkError(
      `it uses link format ${version}, made by a newer Baton; this one reads link format ${LINK_VERSION}`,
    );
  }
  // Only the canonical spelling: "01" is not a version, so no two texts name the same format.
  if (version !== LINK_VERSION || m[1] !== String(LINK_VERSION)) {
    return linkError(`link format ${m[1]} does not exist`);
  }
  if (payload === '') return linkError('the link is empty after "1."; was it cut short?');

  const text = decompressText(payload, MAX_INFLATED_BYTES);
  if (!text.ok) return linkError(text.message);
  let raw: unknown;
  try {
    raw = JSON.parse(text.value);
  } catch (e) {
    return linkError(`its content is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  return parseTraceValue(raw);
}
