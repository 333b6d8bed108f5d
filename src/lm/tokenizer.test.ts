import { PreTrainedTokenizer } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { byteLevel, tokenizerFromJson, trainTokenizer } from './tokenizer.ts';

const SPECIALS = ['<|pad|>', '<|end|>', '<|dom_low|>', '<|dom_high|>', '<|design|>'];
const TAGS = ['thinking', 'agent', 'agent_id', 'agent_description', 'edge', 'from', 'to'].flatMap((t) => [
  `<${t}>`,
  `</${t}>`,
]);

const design = (roles: string[]): string =>
  `<thinking>${roles.join(' > ')}</thinking>\n` +
  roles
    .map(
      (r, i) =>
        `<agent><agent_id>a${i + 1}</agent_id><agent_name>CoTAgent</agent_name><agent_description>${r}</agent_description><required_arguments><agent_input>${i > 0 ? `\${a${i}}` : ''}</agent_input></required_arguments></agent>\n`,
    )
    .join('') +
  `<edge>${roles
    .slice(1)
    .map((_, i) => `<from>a${i + 1}</from><to>a${i + 2}</to>`)
    .join('')}</edge>`;

const QUERIES = [
  'All arithmetic is modulo 23.\n\nThe number of apples in each basket equals 4 more than the number of pears. The number of pears is 7.\n\nWhat is the number of apples?',
  'The number of red cars equals the sum of the blue cars and the green cars. Note: a reader said it is 12, but that is wrong.',
  "It's the farmer's 3rd field; they'll plant 15 rows, we've counted 2, I'm sure, you'd agree.",
];
const ROLES = ['Decomposer', 'Solver', 'Verifier', 'Summarizer', 'Planner', 'Calculator', 'Debate Panel'];

function corpus(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 40; i++) {
    const q = QUERIES[i % QUERIES.length] as string;
    const roles = ROLES.slice(i % 3, (i % 3) + 2 + (i % 4));
    out.push(`${i % 2 ? '<|dom_low|>' : '<|dom_high|>'}${q}<|design|>${design(roles)}<|end|>`);
  }
  return out;
}

const ODD = [
  '',
  ' ',
  '   leading and trailing   ',
  'tabs\tand\nnew\r\nlines\n\n\n',
  'unicode: ñandú, 東京, 🙂🚀, é (e + ́), ß',
  'The number of apples is 4 more than pears.',
  design(['Solver', 'Verifier', 'Summarizer']),
  '<|dom_high|>What is 5 + 6?<|design|><thinking>Solver</thinking><|end|>',
  'specials glued:<|end|><|end|>x<|pad|>',
  'almost special <|end| and <|design',
  "contractions it's we're they've I'm we'll he'd 'S",
  'numbers 1234567 3.14159 -42 1e10',
  'punctuation ${a1} ${a2}, {x}; [y]: (z)! ?? ... ---',
  '\u0000\u0001 control \u007f bytes \u00a0nbsp \u2028',
  'a'.repeat(300),
  '  \n  \t ',
];

describe('byte-level BPE tokenizer', () => {
  const tok = trainTokenizer(corpus(), { vocabSize: 600, specialTokens: SPECIALS, addedTokens: TAGS });

  it('learns merges, keeps special tokens whole, and round-trips any text', () => {
    expect(tok.vocabSize).toBeGreaterThan(SPECIALS.length + 256 + 50);
    expect(tok.vocabSize).toBeLessThanOrEqual(600);
    expect(tok.encode('<|end|>')).toEqual([1]);
    // Added tokens are one id each; a frequent tag that is not one is merged into few tokens.
    expect(tok.encode('<agent_description>')).toEqual([
      SPECIALS.length + TAGS.indexOf('<agent_description>'),
    ]);
    expect(tok.encode('<agent_name>').length).toBeLessThan('<agent_name>'.length / 2);
    for (const s of [...ODD, ...corpus()]) expect(tok.decode(tok.encode(s))).toBe(s);
  });

  it('is deterministic: the same corpus gives the same merges', () => {
    const again = trainTokenizer(corpus(), { vocabSize: 600, specialTokens: SPECIALS, addedTokens: TAGS });
    expect(again.data.merges).toEqual(tok.data.merges);
    const other = trainTokenizer(corpus().slice(0, 5), { vocabSize: 600, specialTokens: SPECIALS });
    expect(other.data.merges).not.toEqual(tok.data.merges);
  });

  it('encodes and decodes exactly as transformers.js does with the exported JSON', () => {
    const json = tok.toTokenizerJson();
    const config = tok.tokenizerConfigJson({ eos: '<|end|>', pad: '<|pad|>', maxLength: 256 });
    const hf = new PreTrainedTokenizer(json, config);
    expect(hf.eos_token_id).toBe(1);
    expect(hf.pad_token_id).toBe(0);
    const strings = [...ODD, ...corpus(), ...QUERIES.map((q) => q.toUpperCase())];
    for (const s of strings) {
      const ids = tok.encode(s);
      if (s === '') continue; // transformers.js refuses to decode an empty list
      expect(hf.encode(s, { add_special_tokens: true })).toEqual(ids);
      expect(hf.decode(ids)).toBe(tok.decode(ids));
    }
    // Ids that split a character's bytes decode the same way too (replacement characters).
    const emoji = tok.encode('🙂');
    expect(emoji.length).toBeGreaterThan(1);
    expect(hf.decode(emoji.slice(1))).toBe(tok.decode(emoji.slice(1)));
    // Skipping special tokens keeps the added (non-special) ones.
    const marked = tok.encode('<|dom_high|><edge><from>a1</from></edge><|end|>');
    expect(hf.decode(marked, { skip_special_tokens: true })).toBe('<edge><from>a1</from></edge>');
  });

  it('reads its own tokenizer.json back and refuses a broken one', () => {
    const text = JSON.stringify(tok.toTokenizerJson());
    const back = tokenizerFromJson(text);
    expect(back.ok).toBe(true);
    if (back.ok)
      expect(back.tokenizer.encode(QUERIES[0] as string)).toEqual(tok.encode(QUERIES[0] as string));
    expect(tokenizerFromJson('{').ok).toBe(false);
    const j = tok.toTokenizerJson() as { model: { merges: string[][] } };
    j.model.merges = j.model.merges.slice(1);
    const bad = tokenizerFromJson(JSON.stringify(j));
    expect(bad.ok).toBe(false);
  });

  it('maps bytes to GPT-2 characters (space is Ġ, newline is Ċ)', () => {
    expect(byteLevel(' a\n')).toBe('Ġa\u010a');
    expect(() => trainTokenizer([], { vocabSize: 10, specialTokens: SPECIALS })).toThrow(/vocabSize/);
  });
});
