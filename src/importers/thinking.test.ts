import { describe, expect, it } from 'vitest';
import { ANALYSIS_HEADING, splitThinking } from './thinking.ts';

describe('orchestrator thinking', () => {
  it('takes the <thinking> block, with or without its closing tag or a code fence', () => {
    expect(splitThinking('<thinking>\n  Delegate to a debate.\n</thinking>\n<agent>…')).toBe(
      'Delegate to a debate.',
    );
    expect(splitThinking('<thinking>\n    Cut off here')).toBe('Cut off here');
    expect(splitThinking('```xml\n<thinking>Fenced</thinking>\n```')).toBe('Fenced');
  });

  it('splits a harmony transcript into the final thinking and the reasoning channel', () => {
    expect(splitThinking('analysisWe need two agents.assistantfinal<thinking>Two agents.</thinking>')).toBe(
      `Two agents.\n\n${ANALYSIS_HEADING}\nWe need two agents.`,
    );
    expect(splitThinking('analysisOnly reasoning, cut off')).toBe(
      `${ANALYSIS_HEADING}\nOnly reasoning, cut off`,
    );
    expect(splitThinking('analysisX.assistantfinal thinkingThe plan.')).toBe(
      `The plan.\n\n${ANALYSIS_HEADING}\nX.`,
    );
  });

  it('leaves ordinary prose alone and returns nothing for empty text', () => {
    expect(splitThinking('Analysis of the problem: easy.')).toBe('Analysis of the problem: easy.');
    expect(splitThinking('   ')).toBeUndefined();
  });
});
