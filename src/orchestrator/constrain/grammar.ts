/**
 * The syntax of a design as an EBNF grammar for XGrammar: tags in order, the id alphabet, agent
 * names from the archive (hub) or the role list (tiny), free text without markup, `${id}` references
 * inside inputs, debate-role lists and the edge block's layout. It is static per (format, DoM, names
 * or roles), so it is compiled once and cached; everything that depends on what was already written
 * (which ids exist, which are referenced, how many agents) is the writer's (writer.ts).
 */

export type DesignFormat = 'hub' | 'tiny' | 'tiny2';

/** An EBNF string literal. */
export function lit(s: string): string {
  return JSON.stringify(s);
}

export interface GrammarInput {
  format: DesignFormat;
  dom: 'low' | 'high';
  /** hub: agent names. */
  names: readonly string[];
  /** tiny: roles with their id stems and archive types. */
  roles: readonly { name: string; agentType: string; slug: string }[];
}

export function designGrammar(g: GrammarInput): string {
  return g.format === 'hub' ? hubGrammar(g) : g.format === 'tiny2' ? tiny2Grammar(g) : tinyGrammar(g);
}

function hubGrammar(g: GrammarInput): string {
  const low = g.dom === 'low';
  const rules = [
    'root ::= ws "<thinking>" text "</thinking>" agents ws edge',
    low ? 'agents ::= ws agent' : 'agents ::= (ws agent)+',
    'text ::= [^<]*',
    low
      ? 'input ::= [^<$&]* ("$" [^{<$&] [^<$&]*)*'
      : 'input ::= [^<$&]* ("$" [^{<$&] [^<$&]* | "${" id "}" [^<$&]*)*',
    low
      ? 'edge ::= "<edge></edge>"'
      : 'edge ::= "<edge>\\n" ("    <from>" id "</from><to>" id "</to>\\n")* "</edge>"',
    'ws ::= [ \\t\\n]*',
    'id ::= [A-Za-z0-9_]+',
    'body ::= ws "<agent_description>" text "</agent_description>" ws "<required_arguments>" ws "<agent_input>" input "</agent_input>"',
  ];
  const plain = g.names.filter((n) => n !== 'DebateAgent');
  const debate = g.names.includes('DebateAgent');
  const alts = [...(plain.length > 0 ? ['plain'] : []), ...(debate ? ['debate'] : [])];
  rules.push(`agent ::= "<agent>" ws "<agent_id>" id "</agent_id>" ws "<agent_name>" (${alts.join(' | ')})`);
  if (plain.length > 0) {
    rules.push(
      `plain ::= (${plain.map(lit).join(' | ')}) "</agent_name>" body ws "</required_arguments>" ws "</agent>"`,
    );
  }
  if (debate) {
    rules.push(
      'debate ::= "DebateAgent</agent_name>" body ws "<debate_roles>" roles "</debate_roles>" ws "</required_arguments>" ws "</agent>"',
      'roles ::= "[" role ("," " "? role)+ "]"',
      'role ::= "\\"" [A-Za-z0-9 .\\-]+ "\\""',
    );
  }
  return rules.join('\n');
}

/**
 * tiny: the thinking is the plan (role names joined by `, `), an input holds only `${id}`
 * references, no whitespace anywhere (tiny-format.ts describes the format).
 */
function tinyGrammar(g: GrammarInput): string {
  const low = g.dom === 'low';
  const names = g.roles.map((r) => lit(r.name)).join(' | ');
  const header = g.roles
    .map((r) => lit(`${r.agentType}</agent_name><agent_description>${r.name}`))
    .join(' | ');
  return [
    'root ::= "<thinking>" plan "</thinking>" agents edge',
    low ? 'plan ::= role' : 'plan ::= role (", " role)*',
    `role ::= ${names}`,
    low ? 'agents ::= agent' : 'agents ::= agent+',
    'id ::= [a-z0-9\\-]+',
    `agent ::= "<agent><agent_id>" id "</agent_id><agent_name>" (${header}) "</agent_description><required_arguments><agent_input>" ${low ? '' : 'refs '}"</agent_input></required_arguments></agent>"`,
    ...(low ? [] : ['refs ::= ("${" id "}")*']),
    low ? 'edge ::= "<edge></edge>"' : 'edge ::= "<edge>" ("<from>" id "</from><to>" id "</to>")* "</edge>"',
  ].join('\n');
}

/**
 * tiny2: free thinking text (the plan in words), then agents whose role is chosen per agent (ids
 * `<slug>-K`, the writer checks K), inputs of `${id}` references only, the edge block; in low DoM
 * one agent without references, or a direct answer (tiny2-format.ts describes the format).
 */
function tiny2Grammar(g: GrammarInput): string {
  const low = g.dom === 'low';
  const header = g.roles
    .map((r) => lit(`${r.agentType}</agent_name><agent_description>${r.name}`))
    .join(' | ');
  return [
    'root ::= "<thinking>" text "</thinking>" body',
    'text ::= [^<]*',
    low
      ? 'body ::= agent "<edge></edge>" | "<answer>" text "</answer>"'
      : 'body ::= agent+ "<edge>" ("<from>" id "</from><to>" id "</to>")* "</edge>"',
    'id ::= [a-z0-9\\-]+',
    `agent ::= "<agent><agent_id>" id "</agent_id><agent_name>" (${header}) "</agent_description><required_arguments><agent_input>" ${low ? '' : 'refs '}"</agent_input></required_arguments></agent>"`,
    ...(low ? [] : ['refs ::= ("${" id "}")*']),
  ].join('\n');
}
