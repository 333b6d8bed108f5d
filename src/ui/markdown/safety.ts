/**
 * What makes rendered markdown safe for untrusted trace text (model outputs, imported files):
 * raw HTML becomes literal text, link targets are limited to http/https/mailto, and KaTeX runs
 * untrusted (no \href, \url or HTML extensions).
 */

/** A minimal unist node: enough to walk the markdown tree without extra dependencies. */
interface TreeNode {
  type: string;
  value?: string;
  children?: TreeNode[];
}

/**
 * remark plugin: turns every raw `html` node into a `text` node with the same source, so
 * `<script>` shows as the characters `<script>` and is never parsed as HTML.
 */
export function remarkHtmlAsText() {
  return (tree: TreeNode): void => {
    const stack: TreeNode[] = [tree];
    while (stack.length > 0) {
      const node = stack.pop() as TreeNode;
      if (node.type === 'html') node.type = 'text';
      if (node.children) stack.push(...node.children);
    }
  };
}

const SAFE_PROTOCOL = /^(https?:|mailto:)/i;

/**
 * Keeps absolute http(s) and mailto URLs only; everything else (javascript:, data:, vbscript:,
 * relative paths that would resolve against Baton's own origin) becomes '' and renders inert.
 */
export function safeUrl(url: string): string {
  // Browsers ignore control characters and surrounding whitespace in URL schemes; so must we.
  // eslint-disable-next-line no-control-regex
  const cleaned = url.replace(/[\u0000-\u0020\u007f]+/g, '');
  return SAFE_PROTOCOL.test(cleaned) ? url.trim() : '';
}

/** KaTeX options for untrusted input. */
export const KATEX_OPTIONS = {
  throwOnError: false,
  strict: 'ignore',
  trust: false,
  maxExpand: 1000,
  maxSize: 20,
  output: 'htmlAndMathml',
} as const;
