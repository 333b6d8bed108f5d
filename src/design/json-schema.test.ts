import { describe, expect, it } from 'vitest';
import { DESIGN_JSON_SCHEMA, designResponseFormat, readSchemaReply } from './json-schema.ts';
import { parseDesign } from './parse.ts';

const reply = {
  thinking: 'Two look-ups, then a debate.',
  agents: [
    { id: 'a', type: 'CoTAgent', description: 'A', input: '', debateRoles: [] },
    { id: 'b', type: 'CoTAgent', description: 'B', input: '', debateRoles: [] },
    { id: 'j', type: 'DebateAgent', description: 'J', input: '${a} ${b}', debateRoles: ['Pro', 'Con'] },
  ],
  edges: [
    { from: 'a', to: 'j' },
    { from: 'b', to: 'j' },
  ],
};

describe('the design JSON schema for structured output', () => {
  it('is a strict schema: every property required, nothing extra', () => {
    expect(DESIGN_JSON_SCHEMA.required).toEqual(['thinking', 'agents', 'edges']);
    const agent = DESIGN_JSON_SCHEMA.properties.agents.items;
    expect([...agent.required].sort()).toEqual(Object.keys(agent.properties).sort());
    expect(agent.additionalProperties).toBe(false);
    expect(designResponseFormat()).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
  });

  it('reads a schema reply into a valid design, dropping the empty debate roles', () => {
    const r = parseDesign(readSchemaReply(JSON.stringify(reply)));
    expect(r.problems).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(r.design?.agents.map((a) => a.type)).toEqual(['CoTAgent', 'CoTAgent', 'DebateAgent']);
    expect(r.design?.agents[0]?.params?.debateRoles).toBeUndefined();
    expect(r.design?.agents[2]?.params?.debateRoles).toEqual(['Pro', 'Con']);
    expect(r.design?.thinking).toBe('Two look-ups, then a debate.');
  });

  it('unwraps a fenced reply and leaves anything else for the reader to report', () => {
    const fenced = '```json\n' + JSON.stringify(reply) + '\n```';
    expect(parseDesign(readSchemaReply(fenced)).design).not.toBeNull();
    expect(readSchemaReply('<html>502</html>')).toBe('<html>502</html>');
    const cut = parseDesign(readSchemaReply('{"thinking": "x", "agents": [{"id": '));
    expect(cut.design).toBeNull();
    expect(cut.problems[0]).toMatch(/Not valid JSON/);
    const wrong = parseDesign(readSchemaReply('{"thinking": "x", "agents": "none"}'));
    expect(wrong.problems[0]).toMatch(/^agents:/);
  });
});
