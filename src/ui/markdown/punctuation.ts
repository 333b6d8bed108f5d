/**
 * rehype plugin, run after KaTeX: punctuation right after inline maths (`$x$.`, `$x$,`) and an
 * opening bracket or quote right before it stay on the same line as the maths. The browser may
 * break a line after KaTeX's inline boxes, which otherwise leaves a lone "." at the start of the
 * next line; maths and its punctuation go in one `white-space: nowrap` span (`.md-nowrap`).
 */

/** A minimal hast node: enough to walk the tree without extra dependencies. */
interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/** Closing punctuation that belongs to the maths before it. */
const AFTER = /^[.,;:!?)\]}'"”’…%]+/;
/** Opening brackets and quotes that belong to the maths after them. */
const BEFORE = /[([{"'“‘]+$/;

const classesOf = (node: HastNode): string[] => {
  const c = node.properties?.className;
  return Array.isArray(c) ? c.map(String) : typeof c === 'string' ? c.split(/\s+/) : [];
};

/** KaTeX's inline maths element (display maths sits in a `.katex-display` of its own). */
const isInlineMath = (node: HastNode): boolean =>
  node.type === 'element' && classesOf(node).includes('katex');

const text = (value: string): HastNode => ({ type: 'text', value });

/** Wraps each inline maths element of `children` with the punctuation that touches it. */
function glue(children: HastNode[]): HastNode[] {
  if (!children.some(isInlineMath)) return children;
  const out: HastNode[] = [];
  for (let i = 0; i < children.length; i++) {
    const node = children[i] as HastNode;
    if (!isInlineMath(node)) {
      out.push(node);
      continue;
    }
    const prev = out[out.length - 1];
    const next = children[i + 1];
    const lead = prev?.type === 'text' ? (BEFORE.exec(prev.value ?? '')?.[0] ?? '') : '';
    const trail = next?.type === 'text' ? (AFTER.exec(next.value ?? '')?.[0] ?? '') : '';
    if (lead === '' && trail === '') {
      out.push(node);
      continue;
    }
    const wrapped: HastNode[] = [];
    if (lead !== '' && prev) {
      const rest = (prev.value ?? '').slice(0, -lead.length);
      out.pop();
      if (rest !== '') out.push(text(rest));
      wrapped.push(text(lead));
    }
    wrapped.push(node);
    if (trail !== '' && next) {
      wrapped.push(text(trail));
      const rest = (next.value ?? '').slice(trail.length);
      // The rest of the text comes next in the loop, in place of the original node.
      children[i + 1] = text(rest);
    }
    out.push({
      type: 'element',
      tagName: 'span',
      properties: { className: ['md-nowrap'] },
      children: wrapped,
    });
  }
  return out.filter((n) => n.type !== 'text' || n.value !== '');
}

const FINAL = new Set(['katex', 'katex-display', 'md-nowrap']);

export function rehypeMathPunctuation() {
  return (tree: HastNode): void => {
    const stack: HastNode[] = [tree];
    while (stack.length > 0) {
      const node = stack.pop() as HastNode;
      if (!node.children) continue;
      // KaTeX's own markup and the spans made here are final: nothing inside them to glue.
      if (node.type === 'element' && classesOf(node).some((c) => FINAL.has(c))) continue;
      node.children = glue(node.children);
      stack.push(...node.children);
    }
  };
}
