/**
 * A small reader for Python literals: strings (single, double, triple-quoted, with `r`/`u`/`b`
 * prefixes), numbers, `True`/`False`/`None` (and JSON's `true`/`false`/`null`), lists, tuples,
 * dicts and sets. MAS-Orchestra writes its designs into generated Python (`json.dumps` or `repr`
 * output pasted into a `forward()` function), and running that code is out of the question, so
 * this reads the literal text and nothing else: no names, calls, operators or f-strings.
 */

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export interface LiteralOptions {
  /**
   * Keep the body of `"""…"""` / `'''…'''` strings as written instead of processing escapes.
   * MAS-Orchestra's generator pastes the orchestrator's text between triple quotes without
   * escaping it, so LaTeX such as `\frac` is the author's text, not a form feed.
   */
  verbatimTripleQuoted?: boolean;
  /** Deepest nesting accepted; deeper input is rejected rather than risking the stack. */
  maxDepth?: number;
}

export type LiteralRead =
  { ok: true; value: PyValue; end: number } | { ok: false; error: string; at: number };

const DEFAULT_MAX_DEPTH = 64;

class LiteralError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** Line and column (1-based) of an offset, for error messages. */
export function lineColumn(src: string, at: number): string {
  let line = 1;
  let last = -1;
  for (let i = 0; i < at && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return `line ${line}, column ${at - last}`;
}

/**
 * Reads one literal starting at `start` (leading whitespace and comments are skipped) and returns
 * its value and the offset just after it. Never throws.
 */
export function readPyLiteral(src: string, start = 0, options: LiteralOptions = {}): LiteralRead {
  const reader = new Reader(src, options);
  try {
    const value = reader.value(start, 0);
    return { ok: true, value: value.v, end: value.end };
  } catch (e) {
    if (e instanceof LiteralError) return { ok: false, error: e.message, at: e.at };
    // A RangeError from an unexpectedly deep structure or a huge string ends up here.
    return { ok: false, error: e instanceof Error ? e.message : String(e), at: start };
  }
}

/** Reads a whole string as exactly one literal (trailing whitespace and comments allowed). */
export function parsePyLiteral(src: string, options: LiteralOptions = {}): LiteralRead {
  const r = readPyLiteral(src, 0, options);
  if (!r.ok) return r;
  const end = new Reader(src, options).skip(r.end);
  if (end < src.length) return { ok: false, error: `unexpected text after the literal`, at: end };
  return r;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class Reader {
  private readonly maxDepth: number;

  constructor(
    private readonly src: string,
    private readonly options: LiteralOptions,
  ) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  /** Skips whitespace, `#` comments and backslash line continuations. */
  skip(i: number): number {
    const s = this.src;
    while (i < s.length) {
      const c = s[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') i++;
      else if (c === '#') {
        const nl = s.indexOf('\n', i);
        i = nl < 0 ? s.length : nl + 1;
      } else if (c === '\\' && (s[i + 1] === '\n' || s[i + 1] === '\r')) i += 2;
      else break;
    }
    return i;
  }

  value(at: number, depth: number): { v: PyValue; end: number } {
    if (depth > this.maxDepth) throw new LiteralError(`nested deeper than ${this.maxDepth} levels`, at);
    const s = this.src;
    const i = this.skip(at);
    if (i >= s.length) throw new LiteralError('expected a value, found the end of the text', i);
    const c = s[i] as string;
    if (c === '[') return this.sequence(i, ']', depth);
    if (c === '(') return this.sequence(i, ')', depth);
    if (c === '{') return this.dict(i, depth);
    if (c === '"' || c === "'") return this.strings(i);
    if (c === '-' || c === '+' || c === '.' || (c >= '0' && c <= '9')) return this.number(i);
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i, i + 64))?.[0];
    if (word !== undefined) {
      const q = s[i + word.length];
      if ((q === '"' || q === "'") && /^(r|u|b|br|rb)$/i.test(word)) return this.strings(i);
      if (word === 'True' || word === 'true') return { v: true, end: i + word.length };
      if (word === 'False' || word === 'false') return { v: false, end: i + word.length };
      if (word === 'None' || word === 'null') return { v: null, end: i + word.length };
      throw new LiteralError(
        `"${word}" is not a literal (only strings, numbers, True, False, None, lists, tuples and dicts are read)`,
        i,
      );
    }
    throw new LiteralError(`unexpected character ${JSON.stringify(c)}`, i);
  }

  private sequence(open: number, close: string, depth: number): { v: PyValue[]; end: number } {
    const out: PyValue[] = [];
    let i = this.skip(open + 1);
    while (true) {
      if (i >= this.src.length) throw new LiteralError(`"${this.src[open]}" is never closed`, open);
      if (this.src[i] === close) return { v: out, end: i + 1 };
      const item = this.value(i, depth + 1);
      out.push(item.v);
      i = this.skip(item.end);
      if (i >= this.src.length) throw new LiteralError(`"${this.src[open]}" is never closed`, open);
      if (this.src[i] === ',') i = this.skip(i + 1);
      else if (this.src[i] !== close) throw new LiteralError(`expected "," or "${close}"`, i);
    }
  }

  private dict(open: number, depth: number): { v: PyValue; end: number } {
    const out: { [key: string]: PyValue } = {};
    const set: PyValue[] = [];
    let kind: 'unknown' | 'dict' | 'set' = 'unknown';
    let i = this.skip(open + 1);
    while (true) {
      if (i >= this.src.length) throw new LiteralError('"{" is never closed', open);
      if (this.src[i] === '}') return { v: kind === 'set' ? set : out, end: i + 1 };
      const key = this.value(i, depth + 1);
      i = this.skip(key.end);
      if (kind !== 'set' && this.src[i] === ':') {
        kind = 'dict';
        if (typeof key.v === 'object' && key.v !== null) {
          throw new LiteralError('a dict key must be a string, number, True, False or None', i);
        }
        const val = this.value(i + 1, depth + 1);
        // defineProperty, so a key named "__proto__" is data and never reaches the prototype.
        Object.defineProperty(out, String(key.v), {
          value: val.v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        i = this.skip(val.end);
      } else if (kind !== 'dict') {
        kind = 'set';
        set.push(key.v);
      } else {
        throw new LiteralError('expected ":" after a dict key', i);
      }
      if (i >= this.src.length) throw new LiteralError('"{" is never closed', open);
      if (this.src[i] === ',') i = this.skip(i + 1);
      else if (this.src[i] !== '}') throw new LiteralError('expected "," or "}"', i);
    }
  }

  /** One string, or several adjacent ones, which Python joins (`"a" "b"` is `"ab"`). */
  private strings(at: number): { v: string; end: number } {
    let first = this.string(at);
    let i = this.skip(first.end);
    while (i < this.src.length && /^(?:[rRuUbB]{0,2})['"]/.test(this.src.slice(i, i + 3))) {
      const next = this.string(i);
      first = { v: first.v + next.v, end: next.end };
      i = this.skip(next.end);
    }
    return first;
  }

  private string(at: number): { v: string; end: number } {
    const s = this.src;
    let i = at;
    let raw = false;
    while (/[rRuUbB]/.test(s[i] ?? '')) {
      if (s[i] === 'r' || s[i] === 'R') raw = true;
      i++;
    }
    const q = s[i] as string;
    const triple = s[i + 1] === q && s[i + 2] === q;
    const delim = triple ? q.repeat(3) : q;
    const bodyStart = i + delim.length;
    if (triple) {
      let j = bodyStart;
      // The closing delimiter is the first unescaped run of three quotes.
      while (true) {
        const k = s.indexOf(delim, j);
        if (k < 0) throw new LiteralError('a triple-quoted string is never closed', at);
        let backslashes = 0;
        for (let b = k - 1; b >= bodyStart && s[b] === '\\'; b--) backslashes++;
        if (backslashes % 2 === 0) {
          const body = s.slice(bodyStart, k);
          const verbatim = raw || this.options.verbatimTripleQuoted === true;
          return { v: verbatim ? body : unescape(body, at), end: k + 3 };
        }
        j = k + 1;
      }
    }
    let j = bodyStart;
    while (j < s.length) {
      const c = s[j];
      if (c === '\\') j += 2;
      else if (c === q) {
        const body = s.slice(bodyStart, j);
        return { v: raw ? body : unescape(body, at), end: j + 1 };
      } else if (c === '\n') break;
      else j++;
    }
    throw new LiteralError('a string is never closed on its line', at);
  }

  private number(at: number): { v: number; end: number } {
    const m = /^[-+]?(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?/.exec(
      this.src.slice(at, at + 400),
    );
    if (!m) throw new LiteralError('expected a number', at);
    const v = Number(m[0].replace(/_/g, ''));
    if (!Number.isFinite(v)) throw new LiteralError(`"${m[0].slice(0, 40)}" is not a finite number`, at);
    return { v, end: at + m[0].length };
  }
}

/** Python's escape sequences in a non-raw string body. Unknown escapes keep their backslash. */
function unescape(body: string, at: number): string {
  if (!body.includes('\\')) return body;
  let out = '';
  let i = 0;
  while (i < body.length) {
    const k = body.indexOf('\\', i);
    if (k < 0) {
      out += body.slice(i);
      break;
    }
    out += body.slice(i, k);
    const c = body[k + 1];
    if (c === undefined) throw new LiteralError('a string ends with a lone backslash', at);
    const simple = SIMPLE_ESCAPES[c];
    if (simple !== undefined) {
      out += simple;
      i = k + 2;
    } else if (c === '\n') {
      i = k + 2;
    } else if (c === 'x' || c === 'u' || c === 'U') {
      const len = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      const hex = body.slice(k + 2, k + 2 + len);
      const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : NaN;
      if (!(code >= 0 && code <= 0x10ffff)) throw new LiteralError(`bad \\${c} escape "\\${c}${hex}"`, at);
      out += String.fromCodePoint(code);
      i = k + 2 + len;
    } else if (c >= '0' && c <= '7') {
      const oct = /^[0-7]{1,3}/.exec(body.slice(k + 1, k + 4))?.[0] ?? '0';
      out += String.fromCharCode(parseInt(oct, 8));
      i = k + 1 + oct.length;
    } else {
      out += '\\' + c;
      i = k + 2;
    }
  }
  return out;
}
