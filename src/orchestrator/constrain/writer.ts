/**
 * The semantic layer: a byte-level automaton that follows a design as it is written and knows what
 * the grammar cannot — the ids declared so far, which of them are referenced, the debate roles named
 * so far and how many tokens each free field has used. The engine asks it, per step, which bytes may
 * come next (`step` on a copy), what text is already determined (`forced`) and whether the design is
 * complete (`done`). It accepts the same language as the grammar (grammar.ts) narrowed by the rules
 * docs/orchestrator.md lists; both accept a byte only when the other can go on, so no state is a
 * dead end.
 */
import { WriterBytes } from './writer-bytes.ts';
import type { FreeKind } from './writer-program.ts';

export type { FreeKind, TinyRole, WriterConfig } from './writer-program.ts';

/**
 * What the engine asks (see the note above); the program and its state are in writer-program.ts,
 * the byte automaton in writer-bytes.ts.
 */
export class DesignWriter extends WriterBytes {
  /**
   * A copy for trying bytes. Copy-on-write: the copy shares the containers (program, agents,
   * references, plan, role keys) until either side changes one, so the mask walk can copy at every
   * byte it tries. `cands` is never changed in place, only replaced.
   */
  clone(): DesignWriter {
    const c = Object.create(DesignWriter.prototype) as DesignWriter;
    Object.assign(c, this);
    this.owned = false;
    c.owned = false;
    return c;
  }

  /** Called once per token, before its bytes: counts tokens per free field. */
  tokenStart(): void {
    this.fieldTokens++;
  }

  /** The kind of free field the writer is in, or null for structure (tags, choices, references). */
  freeKind(): FreeKind | null {
    const i = this.instr;
    if (i.k === 'text') {
      if (i.field !== 'input') return 'text';
      return this.inRef ? null : 'input';
    }
    if (i.k === 'newid') return 'newid';
    if (i.k === 'roles' && this.rolePhase === 1) return 'role';
    return null;
  }

  /** Bytes that can change the semantic state inside the current free field. */
  riskyBytes(): string {
    switch (this.freeKind()) {
      case 'text':
        return '<';
      case 'input':
        return this.dollar ? '<$&{' : '<$&';
      case 'newid':
        return '<';
      case 'role':
        return '"<';
      default:
        return '';
    }
  }

  /**
   * Text that must come next, whatever the model prefers: the rest of a tag, the last option left
   * of a choice, the edge block, or the way out of a field that used up its tokens.
   * Empty when the model has a choice.
   */
  forced(): string {
    if (this.finished) return '';
    const i = this.instr;
    switch (i.k) {
      case 'lit':
        return i.s.slice(this.pos);
      case 'names':
      case 'after':
      case 'plan':
      case 'refs':
      case 'tinyagent':
        // A choice is forced only once one option is left: with two or more, every token that
        // spells a prefix of any option is allowed (a whole `<agent>` or `<edge>` tag, not just `<`).
        return this.cands.length === 1 ? (this.cands[0] as string).slice(this.pos) : '';
      case 'end':
        return '';
      default:
        break;
    }
    if (this.inRef) return this.cands.length === 1 ? (this.cands[0] as string).slice(this.pos) : '';
    if (i.k === 'roles' && this.rolePhase === 0) return '["'.slice(this.pos);
    if (this.fieldTokens < this.capOf()) return '';
    if (i.k === 'ws') {
      const next = this.prog[this.pc + 1];
      return next?.k === 'lit' ? next.s : next?.k === 'after' ? commonPrefix(this.afterOptions()) : '';
    }
    if (i.k === 'text') {
      if (i.field !== 'input') return i.close;
      let s = this.dollar ? ' ' : '';
      if (this.mustReferenceAll()) for (const u of this.unreferenced()) s += `\${${u}}`;
      return s + i.close;
    }
    if (i.k === 'newid') {
      const taken = new Set(this.agents.map((a) => a.id));
      const id = unique(this.buf === '' ? 'a' : this.buf, (s) => taken.has(s), '_');
      return `${id.slice(this.buf.length)}</agent_id>`;
    }
    if (i.k === 'roles') {
      if (this.rolePhase === 0) return '["'.slice(this.pos);
      if (this.rolePhase === 1) {
        const keys = new Set(this.roleKeys);
        const name = unique(
          this.buf.trim() === '' ? `${this.buf}R` : this.buf,
          (s) => keys.has(s.trim().toLowerCase()),
          'X',
        );
        return `${name.slice(this.buf.length)}"`;
      }
      if (this.rolePhase === 2) return this.roleKeys.length >= 2 ? ']' : ', "R';
      if (this.rolePhase === 3) return this.roleSpace ? '"R' : ' "R';
    }
    return '';
  }

  /**
   * The cheapest text that completes the design from here (by `cost`, a token count): out of the
   * current field, the current agent's input referencing every open agent (one sink), a final agent
   * only where one is needed, then the edge block. Checked by stepping a copy through it.
   */
  completion(cost: (s: string) => number): string {
    const w = this.clone();
    let out = '';
    for (let guard = 0; !w.finished; guard++) {
      if (guard > 1000) throw new Error('The design completion does not end.');
      const s = w.cheapestPiece(cost);
      for (let i = 0; i < s.length; i++) {
        if (!w.step(s.charCodeAt(i)))
          throw new Error(`The design completion ${JSON.stringify(s)} was refused.`);
      }
      out += s;
    }
    return out;
  }

  /** The next piece of `completion` (may be empty when it only moves past a whitespace run). */
  private cheapestPiece(cost: (s: string) => number): string {
    const i = this.instr;
    const rest = this.cands.map((c) => c.slice(this.pos));
    const owed = new Set(this.unreferenced());
    switch (i.k) {
      case 'lit':
        return i.s.slice(this.pos);
      case 'ws':
        this.advance();
        return '';
      case 'text': {
        if (this.inRef) {
          const k = this.cands.findIndex((c) => owed.has(c.slice(0, -1)));
          return rest[Math.max(0, k)] as string;
        }
        if (i.field !== 'input') return i.close;
        let s = this.dollar ? ' ' : '';
        if (this.cfg.dom === 'high') for (const u of owed) s += `\${${u}}`;
        return s + i.close;
      }
      case 'newid':
      case 'roles': {
        const f = this.fieldTokens;
        this.fieldTokens = Infinity;
        const s = this.forced();
        this.fieldTokens = f;
        return s;
      }
      case 'names': {
        const score = (k: number): number =>
          cost(rest[k] as string) + ((this.cands[k] as string).startsWith('DebateAgent') ? 1000 : 0);
        let best = 0;
        for (let k = 1; k < rest.length; k++) if (score(k) < score(best)) best = k;
        return rest[best] as string;
      }
      case 'after': {
        // The edge block where it may come; else the direct answer (low DoM, tiny2), else an agent.
        const edge = this.cands.findIndex((c) => c.startsWith('<edge>'));
        const answer = this.cands.indexOf('<answer>');
        return rest[edge >= 0 ? edge : Math.max(0, answer)] as string;
      }
      case 'tinyagent': {
        let best = 0;
        for (let k = 1; k < rest.length; k++)
          if (cost(rest[k] as string) < cost(rest[best] as string)) best = k;
        return rest[best] as string;
      }
      case 'refs': {
        const close = this.cands.indexOf('</agent_input>');
        if (close >= 0) return rest[close] as string;
        const k = this.cands.findIndex((c) => owed.has(c.slice(2, -1)));
        return rest[Math.max(0, k)] as string;
      }
      case 'plan': {
        // End the plan here, with the role whose agent (and the rest) costs least.
        // (After `Role,` only its `, ` is left: write it, and end the plan with the next role.)
        let best = rest[0] as string;
        let bestCost = Infinity;
        rest.forEach((r, k) => {
          if (!(this.cands[k] as string).endsWith('</thinking>')) return;
          const c = this.clone();
          for (let j = 0; j < r.length; j++) if (!c.step(r.charCodeAt(j))) return;
          const n = cost(r) + cost(c.completion(cost));
          if (n < bestCost) {
            bestCost = n;
            best = r;
          }
        });
        return best;
      }
      default:
        return '';
    }
  }

  /** True when the design is complete: only the end token may follow. */
  get done(): boolean {
    return this.finished;
  }
}

/** A name made unique against `taken` by appending `pad` (ids: `_`; roles: `X`). */
function unique(base: string, taken: (s: string) => boolean, pad: string): string {
  let s = base;
  while (taken(s)) s += pad;
  return s;
}

function commonPrefix(xs: readonly string[]): string {
  if (xs.length === 0) return '';
  let p = xs[0] as string;
  for (const x of xs) {
    let n = 0;
    while (n < p.length && n < x.length && p.charCodeAt(n) === x.charCodeAt(n)) n++;
    p = p.slice(0, n);
  }
  return p;
}
