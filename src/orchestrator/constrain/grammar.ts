/**
 * The syntax of a design as an EBNF grammar for XGrammar: tags in order, the id alphabet, agent
 * names from the archive (hub) or the role list (tiny), free text without markup, `${id}` references
 * inside inputs, debate-role lists and the edge block's layout. It is static per (format, DoM, names
 * or roles), so it is compiled once and cached; everything that depends on what was already written
 * (which ids exist, which are referenced, how many agents) is the writer's (writer.ts).
 */

export type DesignFormat = 'hub' | 'tiny';

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
  const ws = g.format === 'hub' ? ' ws ' : ' ';
  const low = g.dom === 'low';
  const rules: string[] = [];
  const input = low
    ? 'input ::= [^<$&]* ("$" [^{<$&] [^<$&]*)*'
    : 'input ::= [^<$&]* ("$" [^{<$&] [^<$&]* | "${" id "}" [^<$&]*)*';
  const edge = low
    ? 'edge ::= "<edge></edge>"'
    : g.format === 'hub'
      ? 'edge ::= "<edge>\\n" ("    <from>" id "</from><to>" id "</to>\\n")* "</edge>"'
      : 'edge ::= "<edge>" ("<from>" id "</from><to>" id "</to>")* "</edge>"';
  const agents = low ? `agents ::=${ws}agent` : `agents ::= (${ws.trim() === '' ? '' : 'ws '}agent)+`;
  rules.push(
    `root ::=${g.format === 'hub' ? ' ws' : ''} "<thinking>" text "</thinking>" agents${ws}edge`,
    agents,
    'text ::= [^<]*',
    input,
    edge,
  );
  if (g.format === 'hub') {
    rules.push(
      'ws ::= [ \\t\\n]*',
      'id ::= [A-Za-z0-9_]+',
      `agent ::= "<agent>" ws "<agent_id>" id "</agent_id>" ws "<agent_name>" (plain | debate)`,
      `plain ::= (${g.names
        .filter((n) => n !== 'DebateAgent')
        .map(lit)
        .join(' | ')}) "</agent_name>" body ws "</required_arguments>" ws "</agent>"`,
      'body ::= ws "<agent_description>" text "</agent_description>" ws "<required_arguments>" ws "<agent_input>" input "</agent_input>"',
    );
    if (g.names.includes('DebateAgent')) {
      rules.push(
        'debate ::= "DebateAgent</agent_name>" body ws "<debate_roles>" roles "</debate_roles>" ws "</required_arguments>" ws "</agent>"',
        'roles ::= "[" role ("," " "? role)+ "]"',
        'role ::= "\\"" [A-Za-z0-9 .\\-]+ "\\""',
      );
    } else {
      rules[rules.length - 3] = (rules[rules.length - 3] as string).replace(' (plain | debate)', ' plain');
    }
  } else {
    rules.push(
      'id ::= [a-z0-9\\-]+',
      `agent ::= "<agent><agent_id>" id "</agent_id><agent_name>" (${g.roles
        .map((r) => lit(`${r.agentType}</agent_name><agent_description>${r.name}`))
        .join(
          ' | ',
        )}) "</agent_description><required_arguments><agent_input>" input "</agent_input></required_arguments></agent>"`,
    );
  }
  return rules.join('\n');
}
