/**
 * Trace ⇄ share link. Pure: no network, DOM, timers or storage. See README.md in this folder and
 * docs/share-links.md.
 */
export {
  LINK_VERSION,
  LINK_BUDGET_CHARS,
  MAX_LINK_INPUT_CHARS,
  encodeTraceLink,
  smallestLink,
  decodeTraceLink,
  designOnlyInDiagram,
  shareUrl,
  type EncodedLink,
  type EncodeOptions,
} from './link.ts';
export { decodeJsonLink, encodeJsonLink, type JsonLink } from './json-link.ts';
export { redactSecrets, redactText, REDACTED } from './redact.ts';
export { MAX_INFLATED_BYTES } from './codec.ts';
