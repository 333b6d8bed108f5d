/**
 * The design writer's program (writer.ts): the instructions a design is written by — literals,
 * whitespace runs, free text, ids, choices — the state the automaton keeps as it follows them (ids,
 * references, debate roles, the tiny format's plan, tokens per field), and the options each choice
 * offers. The byte automaton (writer-bytes.ts) and the engine's questions (writer.ts) extend it.
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

export type Field = 'thinking' | 'description' | 'input' | 'answer';

export type Instr =
  | { k: 'lit'; s: string }
  | { k: 'ws' }
  | { k: 'text'; field: Field; close: string }
  | { k: 'newid' }
  | { k: 'names' }
  | { k: 'roles' }
  | { k: 'after' }
  | { k: 'plan' }
  | { k: 'refs' }
  | { k: 'tinyagent' }
  | { k: 'agentrec'; id: string; type: string }
  | { k: 'edges' }
  | { k: 'end' };

export interface AgentRec {
  id: string;
  type: string;
  refs: string[];
}

/** Kinds of state the engine treats differently when it builds a mask. */
export type FreeKind = 'text' | 'input' | 'newid' | 'role';

/** The state of the writer and the program it follows; extended by `WriterBytes` and `DesignWriter`. */
export class WriterProgram {
  protected prog: Instr[];

  protected pc = 0;

  /** Position inside a literal or inside the candidates of a choice. */
  protected pos = 0;

  /** Remaining candidates of a choice (names, tiny ids, references, after-agent options). */
  protected cands: string[] = [];

  /** Text of the current id, reference or role. */
  protected buf = '';

  /** Tokens started in the current free field. */
  fieldTokens = 0;

  /** Input text: the last byte was a `$` (a `{` would start a reference). */
  protected dollar = false;

  /** Input text: inside `${…}`. */
  protected inRef = false;

  /** Debate roles: 0 before `[`, 1 inside a role, 2 after a role, 3 after `,`, 4 after `]`. */
  protected rolePhase = 0;

  /** Debate roles: a space was written after the `,`. */
  protected roleSpace = false;

  protected roleKeys: string[] = [];

  agents: AgentRec[] = [];

  protected referenced = new Set<string>();

  /** tiny: the roles the thinking lists, in order; the agents follow it. */
  protected plan: TinyRole[] = [];

  finished = false;

  constructor(readonly cfg: WriterConfig) {
    this.prog = [];
    if (cfg.format === 'tiny') {
      this.prog.push({ k: 'lit', s: '<thinking>' }, { k: 'plan' });
      return;
    }
    if (cfg.format === 'tiny2') {
      this.prog.push(
        { k: 'lit', s: '<thinking>' },
        { k: 'text', field: 'thinking', close: '</thinking>' },
        { k: 'lit', s: '</thinking>' },
        { k: 'after' },
      );
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

  /** True when this writer's containers are its own (see `clone`). */
  protected owned = true;

  protected own(): void {
    if (this.owned) return;
    this.prog = this.prog.slice();
    this.roleKeys = this.roleKeys.slice();
    this.agents = this.agents.map((a) => ({ ...a, refs: a.refs.slice() }));
    this.referenced = new Set(this.referenced);
    this.plan = this.plan.slice();
    this.owned = true;
  }

  protected get hub(): boolean {
    return this.cfg.format === 'hub';
  }

  protected ws(): Instr[] {
    return this.hub ? [{ k: 'ws' }] : [];
  }

  protected pushAgentStart(): void {
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
  protected pushAgentBody(type: string): void {
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

  protected pushInputAndClose(type: string): void {
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

  protected get instr(): Instr {
    return this.prog[this.pc] ?? { k: 'end' };
  }

  protected get current(): AgentRec | undefined {
    return this.agents[this.agents.length - 1];
  }

  /** Earlier agents nobody references yet (the current agent, the would-be sink, excluded). */
  protected unreferenced(): string[] {
    const cur = this.current;
    return this.agents.filter((a) => a !== cur && !this.referenced.has(a.id)).map((a) => a.id);
  }

  protected edgeBlock(): string {
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
  protected afterOptions(): string[] {
    if (this.cfg.format === 'tiny2') return this.tiny2AfterOptions();
    const out: string[] = [];
    const more = this.cfg.dom === 'high' && this.agents.length < this.cfg.maxAgents;
    if (more) out.push('<agent>');
    if (this.cfg.dom === 'low' || this.unreferenced().length === 0) out.push(this.edgeBlock());
    return out;
  }

  /**
   * tiny2, after the thinking or an agent: another agent (up to the limit: one in low DoM), the
   * direct answer (low DoM, no agent yet), or the edge block once there is an agent and one sink.
   */
  protected tiny2AfterOptions(): string[] {
    const n = this.agents.length;
    const low = this.cfg.dom === 'low';
    const out: string[] = [];
    if (n < (low ? 1 : this.cfg.maxAgents)) out.push('<agent>');
    if (low && n === 0) out.push('<answer>');
    if (n > 0 && (low || this.unreferenced().length === 0)) out.push(this.edgeBlock());
    return out;
  }

  /** tiny2: the next agent's id, type and role, one option per role (ids `<slug>-K`). */
  protected tinyAgentOptions(): string[] {
    const k = this.agents.length + 1;
    return this.cfg.roles.map(
      (r) =>
        `<agent_id>${r.slug}-${k}</agent_id><agent_name>${r.agentType}</agent_name><agent_description>${r.name}</agent_description><required_arguments><agent_input>`,
    );
  }

  /** tiny2: an agent's header is chosen; its references (high DoM) and closing tags follow. */
  protected pushTinyAgent(option: string): void {
    const k = this.agents.length + 1;
    const role = this.cfg.roles.find((r) => option.startsWith(`<agent_id>${r.slug}-${k}</agent_id>`));
    if (!role) throw new Error('unknown tiny2 agent header');
    this.agents.push({ id: `${role.slug}-${k}`, type: role.agentType, refs: [] });
    if (this.cfg.dom === 'high')
      this.prog.push({ k: 'refs' }, { k: 'lit', s: '</required_arguments></agent>' });
    else this.prog.push({ k: 'lit', s: '</agent_input></required_arguments></agent>' });
    this.prog.push({ k: 'after' });
  }

  /** tiny: the thinking's next role name, followed by `, ` (room for another) or the closing tag. */
  protected planOptions(): string[] {
    const limit = this.cfg.dom === 'low' ? 1 : this.cfg.maxAgents;
    return this.cfg.roles.flatMap((r) => [
      ...(this.plan.length + 1 < limit ? [`${r.name}, `] : []),
      `${r.name}</thinking>`,
    ]);
  }

  /** tiny: the agents of the plan, then the edge block. */
  protected pushPlan(): void {
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
  protected refOptions(): string[] {
    const cur = this.current as AgentRec;
    const out = this.agents.filter((a) => a !== cur && !cur.refs.includes(a.id)).map((a) => `\${${a.id}}`);
    const last =
      this.cfg.format === 'tiny2'
        ? this.agents.length >= this.cfg.maxAgents
        : this.agents.length === this.plan.length;
    if (!last || this.cfg.dom === 'low' || this.unreferenced().length === 0) out.push('</agent_input>');
    return out;
  }

  protected refCandidates(): string[] {
    const cur = this.current;
    return this.agents.filter((a) => a !== cur).map((a) => `${a.id}}`);
  }

  /** Moves to the next instruction and sets up its state. */
  protected advance(): void {
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
    else if (i.k === 'tinyagent') this.cands = this.tinyAgentOptions();
    else if (i.k === 'roles') {
      this.rolePhase = 0;
      this.roleKeys = [];
    } else if (i.k === 'text') {
      this.dollar = false;
      this.inRef = false;
    }
  }

  protected capOf(): number {
    const i = this.instr;
    const f = this.cfg.fieldTokens;
    if (i.k === 'text') return f.text;
    if (i.k === 'newid') return f.id;
    if (i.k === 'ws') return f.ws;
    if (i.k === 'roles') return f.role;
    return Infinity;
  }

  /** In the last possible agent of a high-DoM design, the input must reference every open agent. */
  protected mustReferenceAll(): boolean {
    return this.cfg.dom === 'high' && this.agents.length >= this.cfg.maxAgents;
  }
}
