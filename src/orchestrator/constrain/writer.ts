/**
 * The semantic layer: a byte-level automaton that follows a design as it is written and knows what
 * the grammar cannot — the ids declared so far, which of them are referenced, the debate roles named
 * so far and how many tokens each free field has used. The engine asks it, per step, which bytes may
 * come next (`step` on a copy), what text is already determined (`forced`) and whether the design is
 * complete (`done`). It accepts the same language as the grammar (grammar.ts) narrowed by the rules
 * docs/orchestrator.md lists; both accept a byte only when the other can go on, so no state is a
 * dead end.
 */
import type { DesignFormat } from './grammar.ts';

export interface TinyRole {
  /** The role's name, written as the agent's description. */
  name: string;
  /** The archive type that runs it, written as `agent_name`. */
  agentType: string;
  /** The id stem: ids are `<slug>-<n>`, n counting agents from 1. */
  slug: string;
}

export interface WriterConfig {
  format: DesignFormat;
  dom: 'low' | 'high';
  maxAgents: number;
  /** hub: the agent names the grammar allows. */
  names: readonly string[];
  /** tiny: the closed role list. */
  roles: readonly TinyRole[];
  /** Most tokens a free field (text, id, whitespace run, role name) may take before it is closed. */
  fieldTokens: { text: number; id: number; ws: number; role: number };
}

type Field = 'thinking' | 'description' | 'input';

type Instr =
  | { k: 'lit'; s: string }
  | { k: 'ws' }
  | { k: 'text'; field: Field; close: string }
  | { k: 'newid' }
  | { k: 'names' }
  | { k: 'roles' }
  | { k: 'after' }
  | { k: 'plan' }
  | { k: 'refs' }
  | { k: 'agentrec'; id: string; type: string }
  | { k: 'edges' }
  | { k: 'end' };

interface AgentRec {
  id: string;
  type: string;
  refs: string[];
}

const WS = new Set([0x20, 0x09, 0x0a]);
const isIdByte = (b: number): boolean =>
  (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;
const isRoleByte = (b: number): boolean =>
  (b >= 0x30 && b <= 0x39) ||
  (b >= 0x41 && b <= 0x5a) ||
  (b >= 0x61 && b <= 0x7a) ||
  b === 0x20 ||
  b === 0x2e ||
  b === 0x2d;

/** Kinds of state the engine treats differently when it builds a mask. */
export type FreeKind = 'text' | 'input' | 'newid' | 'role';

export class DesignWriter {
  private prog: Instr[];
  private pc = 0;
  /** Position inside a literal or inside the candidates of a choice. */
  private pos = 0;
  /** Remaining candidates of a choice (names, tiny ids, references, after-agent options). */
  private cands: string[] = [];
  /** Text of the current id, reference or role. */
  private buf = '';
  /** Tokens started in the current free field. */
  fieldTokens = 0;
  /** Input text: the last byte was a `$` (a `{` would start a reference). */
  private dollar = false;
  /** Input text: inside `${…}`. */
  private inRef = false;
  /** Debate roles: 0 before `[`, 1 inside a role, 2 after a role, 3 after `,`, 4 after `]`. */
  private rolePhase = 0;
  /** Debate roles: a space was written after the `,`. */
  private roleSpace = false;
  private roleKeys: string[] = [];
  agents: AgentRec[] = [];
  private referenced = new Set<string>();
  /** tiny: the roles the thinking lists, in order; the agents follow it. */
  private plan: TinyRole[] = [];
  finished = false;

  constructor(readonly cfg: WriterConfig) {
    this.prog = [];
    if (cfg.format === 'tiny') {
      this.prog.push({ k: 'lit', s: '<thinking>' }, { k: 'plan' });
      return;
    }
    this.prog.push(
      { k: 'ws' },
      { k: 'lit', s: '<thinking>' },
      { k: 'text', field: 'thinking', close: '</thinking>' },
      { k: 'lit', s: '</thinking>' },
    );
    this.pushAgentStart();
  }

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

  /** True when this writer's containers are its own (see `clone`). */
  private owned = true;

  private own(): void {
    if (this.owned) return;
    this.prog = this.prog.slice();
    this.roleKeys = this.roleKeys.slice();
    this.agents = this.agents.map((a) => ({ ...a, refs: a.refs.slice() }));
    this.referenced = new Set(this.referenced);
    this.plan = this.plan.slice();
    this.owned = true;
  }

  private get hub(): boolean {
    return this.cfg.format === 'hub';
  }

  private ws(): Instr[] {
    return this.hub ? [{ k: 'ws' }] : [];
  }

  private pushAgentStart(): void {
    this.prog.push(...this.ws(), { k: 'lit', s: '<agent>' }, ...this.ws());
    if (this.hub) {
      this.prog.push(
        { k: 'lit', s: '<agent_id>' },
        { k: 'newid' },
        { k: 'lit', s: '</agent_id>' },
        { k: 'ws' },
        { k: 'lit', s: '<agent_name>' },
        { k: 'names' },
      );
    }
  }

  /** The rest of an agent block once its type is known (hub). */
  private pushAgentBody(type: string): void {
    const w = this.ws();
    this.prog.push(
      ...w,
      { k: 'lit', s: '<agent_description>' },
      { k: 'text', field: 'description', close: '</agent_description>' },
      { k: 'lit', s: '</agent_description>' },
      ...w,
      { k: 'lit', s: '<required_arguments>' },
      ...w,
      { k: 'lit', s: '<agent_input>' },
    );
    this.pushInputAndClose(type);
  }

  private pushInputAndClose(type: string): void {
    const w = this.ws();
    this.prog.push(
      { k: 'text', field: 'input', close: '</agent_input>' },
      { k: 'lit', s: '</agent_input>' },
      ...w,
    );
    if (this.hub && type === 'DebateAgent') {
      this.prog.push(
        { k: 'lit', s: '<debate_roles>' },
        { k: 'roles' },
        { k: 'lit', s: '</debate_roles>' },
        ...w,
      );
    }
    this.prog.push({ k: 'lit', s: '</required_arguments>' }, ...w, { k: 'lit', s: '</agent>' }, ...w, {
      k: 'after',
    });
  }

  private get instr(): Instr {
    return this.prog[this.pc] ?? { k: 'end' };
  }

  private get current(): AgentRec | undefined {
    return this.agents[this.agents.length - 1];
  }

  /** Earlier agents nobody references yet (the current agent, the would-be sink, excluded). */
  private unreferenced(): string[] {
    const cur = this.current;
    return this.agents.filter((a) => a !== cur && !this.referenced.has(a.id)).map((a) => a.id);
  }

  private edgeBlock(): string {
    if (this.cfg.dom === 'low') return '<edge></edge>';
    const nl = this.hub ? '\n' : '';
    const pad = this.hub ? '    ' : '';
    let s = `<edge>${nl}`;
    for (const a of this.agents) {
      for (const r of a.refs) s += `${pad}<from>${r}</from><to>${a.id}</to>${nl}`;
    }
    return `${s}</edge>`;
  }

  /** Options after `</agent>`: another agent, or the edge block once the graph has one sink. */
  private afterOptions(): string[] {
    const out: string[] = [];
    const more = this.cfg.dom === 'high' && this.agents.length < this.cfg.maxAgents;
    if (more) out.push('<agent>');
    if (this.cfg.dom === 'low' || this.unreferenced().length === 0) out.push(this.edgeBlock());
    return out;
  }

  /** tiny: the thinking's next role name, followed by `, ` (room for another) or the closing tag. */
  private planOptions(): string[] {
    const limit = this.cfg.dom === 'low' ? 1 : this.cfg.maxAgents;
    return this.cfg.roles.flatMap((r) => [
      ...(this.plan.length + 1 < limit ? [`${r.name}, `] : []),
      `${r.name}</thinking>`,
    ]);
  }

  /** tiny: the agents of the plan, then the edge block. */
  private pushPlan(): void {
    this.plan.forEach((r, k) => {
      const id = `${r.slug}-${k + 1}`;
      this.prog.push(
        { k: 'agentrec', id, type: r.agentType },
        {
          k: 'lit',
          s: `<agent><agent_id>${id}</agent_id><agent_name>${r.agentType}</agent_name><agent_description>${r.name}</agent_description><required_arguments><agent_input>`,
        },
        { k: 'refs' },
        { k: 'lit', s: '</required_arguments></agent>' },
      );
    });
    this.prog.push({ k: 'edges' });
  }

  /**
   * tiny: an input holds only references, each to an earlier agent and at most once; the last
   * agent's input closes only when every earlier agent is referenced by someone (one sink).
   */
  private refOptions(): string[] {
    const cur = this.current as AgentRec;
    const out = this.agents.filter((a) => a !== cur && !cur.refs.includes(a.id)).map((a) => `\${${a.id}}`);
    const last = this.agents.length === this.plan.length;
    if (!last || this.cfg.dom === 'low' || this.unreferenced().length === 0) out.push('</agent_input>');
    return out;
  }

  private refCandidates(): string[] {
    const cur = this.current;
    return this.agents.filter((a) => a !== cur).map((a) => `${a.id}}`);
  }

  /** Moves to the next instruction and sets up its state. */
  private advance(): void {
    this.own();
    this.pc++;
    this.pos = 0;
    this.buf = '';
    this.fieldTokens = 0;
    for (;;) {
      const i = this.instr;
      if (i.k !== 'agentrec') break;
      this.agents.push({ id: i.id, type: i.type, refs: [] });
      this.pc++;
    }
    const i = this.instr;
    if (i.k === 'edges') this.prog[this.pc] = { k: 'lit', s: this.edgeBlock() };
    else if (i.k === 'end') this.finished = true;
    else if (i.k === 'names') this.cands = this.cfg.names.map((n) => `${n}</agent_name>`);
    else if (i.k === 'plan') this.cands = this.planOptions();
    else if (i.k === 'refs') this.cands = this.refOptions();
    else if (i.k === 'after') this.cands = this.afterOptions();
    else if (i.k === 'roles') {
      this.rolePhase = 0;
      this.roleKeys = [];
    } else if (i.k === 'text') {
      this.dollar = false;
      this.inRef = false;
    }
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

  private capOf(): number {
    const i = this.instr;
    const f = this.cfg.fieldTokens;
    if (i.k === 'text') return f.text;
    if (i.k === 'newid') return f.id;
    if (i.k === 'ws') return f.ws;
    if (i.k === 'roles') return f.role;
    return Infinity;
  }

  /** A name made unique against `taken` by appending `pad` (ids: `_`; roles: `X`). */
  private static unique(base: string, taken: (s: string) => boolean, pad: string): string {
    let s = base;
    while (taken(s)) s += pad;
    return s;
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
      const id = DesignWriter.unique(this.buf === '' ? 'a' : this.buf, (s) => taken.has(s), '_');
      return `${id.slice(this.buf.length)}</agent_id>`;
    }
    if (i.k === 'roles') {
      if (this.rolePhase === 0) return '["'.slice(this.pos);
      if (this.rolePhase === 1) {
        const keys = new Set(this.roleKeys);
        const name = DesignWriter.unique(
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
      case 'after':
        return rest[
          Math.max(
            0,
            this.cands.findIndex((c) => c.startsWith('<edge>')),
          )
        ] as string;
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

  /** In the last possible agent of a high-DoM design, the input must reference every open agent. */
  private mustReferenceAll(): boolean {
    return this.cfg.dom === 'high' && this.agents.length >= this.cfg.maxAgents;
  }

  /** True when the design is complete: only the end token may follow. */
  get done(): boolean {
    return this.finished;
  }

  /** A quick necessary condition for `step(b)` that copies nothing (false: `step` would refuse b). */
  mayStep(b: number): boolean {
    const i = this.instr;
    switch (i.k) {
      case 'lit':
        return i.s.charCodeAt(this.pos) === b;
      case 'ws':
        // What follows a whitespace run always starts with `<`.
        return WS.has(b) || b === 0x3c;
      case 'names':
      case 'after':
      case 'plan':
      case 'refs':
        return this.cands.some((c) => c.charCodeAt(this.pos) === b);
      default:
        return true;
    }
  }

  /** Consumes one byte; false (state unchanged only in part: use on a copy) when it is not allowed. */
  step(b: number): boolean {
    if (this.finished) return false;
    const i = this.instr;
    switch (i.k) {
      case 'lit': {
        if (i.s.charCodeAt(this.pos) !== b) return false;
        this.pos++;
        if (this.pos === i.s.length) this.advance();
        return true;
      }
      case 'ws': {
        // A run may go on past the cap within the token that started it; `forced` checks the cap
        // once per token.
        if (WS.has(b)) return true;
        this.advance();
        return this.step(b);
      }
      case 'text':
        return this.textByte(i, b);
      case 'newid': {
        if (isIdByte(b)) {
          this.buf += String.fromCharCode(b);
          return true;
        }
        if (b !== 0x3c || this.buf === '') return false;
        if (this.agents.some((a) => a.id === this.buf)) return false;
        this.own();
        this.agents.push({ id: this.buf, type: '', refs: [] });
        this.advance();
        return this.step(b);
      }
      case 'names':
      case 'after':
      case 'plan':
      case 'refs':
        return this.choiceByte(i, b);
      case 'roles':
        return this.roleByte(b);
      case 'end':
      case 'agentrec':
      case 'edges':
        return false;
    }
  }

  private textByte(i: Extract<Instr, { k: 'text' }>, b: number): boolean {
    if (this.inRef) {
      this.cands = this.cands.filter((c) => c.charCodeAt(this.pos) === b);
      if (this.cands.length === 0) return false;
      this.pos++;
      const whole = this.cands.find((c) => c.length === this.pos);
      if (whole) {
        const id = whole.slice(0, -1);
        this.own();
        const cur = this.current as AgentRec;
        if (!cur.refs.includes(id)) cur.refs.push(id);
        this.referenced.add(id);
        this.inRef = false;
        this.pos = 0;
      }
      return true;
    }
    if (b === 0x3c) {
      if (this.dollar) return false;
      if (i.field === 'input' && this.mustReferenceAll() && this.unreferenced().length > 0) return false;
      this.advance();
      return this.step(b);
    }
    if (i.field !== 'input') return true;
    if (b === 0x26) return false;
    if (this.dollar) {
      this.dollar = false;
      if (b === 0x24) return false;
      if (b === 0x7b) {
        this.cands = this.cfg.dom === 'high' ? this.refCandidates() : [];
        if (this.fieldTokens >= this.cfg.fieldTokens.text && this.mustReferenceAll()) {
          // Out of tokens in the last agent's input: only the references it still owes.
          const owed = new Set(this.unreferenced());
          const only = this.cands.filter((c) => owed.has(c.slice(0, -1)));
          if (only.length > 0) this.cands = only;
        }
        if (this.cands.length === 0) return false;
        this.inRef = true;
        this.pos = 0;
      }
      return true;
    }
    if (b === 0x24) this.dollar = true;
    return true;
  }

  private choiceByte(i: Extract<Instr, { k: 'names' | 'after' | 'plan' | 'refs' }>, b: number): boolean {
    const left = this.cands.filter((c) => c.charCodeAt(this.pos) === b);
    if (left.length === 0) return false;
    this.cands = left;
    this.pos++;
    const whole = left.find((c) => c.length === this.pos);
    if (!whole) return true;
    this.own();
    if (i.k === 'names') {
      const type = whole.slice(0, -'</agent_name>'.length);
      (this.current as AgentRec).type = type;
      this.pushAgentBody(type);
    } else if (i.k === 'plan') {
      const name = whole.endsWith(', ') ? whole.slice(0, -2) : whole.slice(0, -'</thinking>'.length);
      this.plan.push(this.cfg.roles.find((r) => r.name === name) as TinyRole);
      if (whole.endsWith(', ')) {
        this.cands = this.planOptions();
        this.pos = 0;
        return true;
      }
      this.pushPlan();
    } else if (i.k === 'refs') {
      if (whole !== '</agent_input>') {
        const id = whole.slice(2, -1);
        (this.current as AgentRec).refs.push(id);
        this.referenced.add(id);
        this.cands = this.refOptions();
        this.pos = 0;
        return true;
      }
    } else if (whole === '<agent>') {
      // The `<agent>` literal is already matched: continue with what follows it.
      this.pushAgentStart();
      this.prog.splice(this.pc + 1, 2);
    } else {
      this.finished = true;
      this.prog.push({ k: 'end' });
    }
    this.advance();
    return true;
  }

  private roleByte(b: number): boolean {
    switch (this.rolePhase) {
      case 0:
        if (b === 0x5b && this.pos === 0) {
          this.pos = 1;
          return true;
        }
        if (b === 0x22 && this.pos === 1) {
          this.rolePhase = 1;
          this.buf = '';
          this.fieldTokens = 0;
          return true;
        }
        return false;
      case 1: {
        if (isRoleByte(b)) {
          this.buf += String.fromCharCode(b);
          return true;
        }
        if (b !== 0x22) return false;
        const key = this.buf.trim().toLowerCase();
        if (key === '' || this.roleKeys.includes(key)) return false;
        this.own();
        this.roleKeys.push(key);
        this.rolePhase = 2;
        return true;
      }
      case 2:
        if (b === 0x2c) {
          if (this.roleKeys.length >= 8) return false;
          this.rolePhase = 3;
          return true;
        }
        if (b === 0x5d && this.roleKeys.length >= 2) {
          this.advance();
          return true;
        }
        return false;
      case 3:
        if (b === 0x20 && !this.roleSpace) {
          this.roleSpace = true;
          return true;
        }
        if (b === 0x22) {
          this.roleSpace = false;
          this.rolePhase = 1;
          this.buf = '';
          this.fieldTokens = 0;
          return true;
        }
        return false;
      default:
        return false;
    }
  }
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
