/**
 * The design writer's byte automaton (writer.ts): `step` consumes one byte of the design in the
 * instruction the program is at, with one state machine per kind of field — free text (and the
 * `${id}` references inside an agent's input), the choices (agent names, what follows an agent, the
 * tiny plan, tiny references) and the debate roles' list.
 */
import { WriterProgram, type AgentRec, type Instr, type TinyRole } from './writer-program.ts';

export const WS = new Set([0x20, 0x09, 0x0a]);
const isIdByte = (b: number): boolean =>
  (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;
const isRoleByte = (b: number): boolean =>
  (b >= 0x30 && b <= 0x39) ||
  (b >= 0x41 && b <= 0x5a) ||
  (b >= 0x61 && b <= 0x7a) ||
  b === 0x20 ||
  b === 0x2e ||
  b === 0x2d;

export class WriterBytes extends WriterProgram {
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
      case 'tinyagent':
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
      case 'tinyagent':
        return this.choiceByte(i, b);
      case 'roles':
        return this.roleByte(b);
      case 'end':
      case 'agentrec':
      case 'edges':
        return false;
    }
  }

  protected textByte(i: Extract<Instr, { k: 'text' }>, b: number): boolean {
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

  protected choiceByte(
    i: Extract<Instr, { k: 'names' | 'after' | 'plan' | 'refs' | 'tinyagent' }>,
    b: number,
  ): boolean {
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
    } else if (i.k === 'tinyagent') {
      this.pushTinyAgent(whole);
    } else if (this.cfg.format === 'tiny2' && whole === '<agent>') {
      this.prog.push({ k: 'tinyagent' });
    } else if (whole === '<answer>') {
      this.prog.push({ k: 'text', field: 'answer', close: '</answer>' }, { k: 'lit', s: '</answer>' });
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

  protected roleByte(b: number): boolean {
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
