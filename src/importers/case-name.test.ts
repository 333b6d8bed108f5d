import { describe, expect, it } from 'vitest';
import { caseBaseName, parseCaseName } from './case-name.ts';

describe('MAS-Orchestra case page names', () => {
  it('reads {orchestrator}_{sub-agent model}_{DoM}_{axis}{value}', () => {
    expect(parseCaseName('qwen2.5_20b_oss_120b_low_depth2.sample.json')).toEqual({
      name: 'qwen2.5_20b_oss_120b_low_depth2',
      orchestrator: 'qwen2.5_20b',
      subAgent: 'oss_120b',
      subAgentModel: 'gpt-oss-120b',
      dom: 'low',
      source: { kind: 'masbench', axis: 'depth', value: 2 },
    });
    expect(parseCaseName('mas_r1/qwen2.5_7b_oss_120b_high_breadth8.html')).toMatchObject({
      orchestrator: 'qwen2.5_7b',
      dom: 'high',
      source: { kind: 'masbench', axis: 'breadth', value: 8 },
    });
    expect(parseCaseName('qwen2.5_7b_oss_7b_low_depth4_100steps.html')).toMatchObject({
      subAgentModel: 'gpt-oss-7b',
      suffix: '100steps',
    });
  });

  it('reads benchmark pages without a DoM part', () => {
    expect(parseCaseName('harmony_grpo_7b_120b_aime24.sample.json')).toEqual({
      name: 'harmony_grpo_7b_120b_aime24',
      orchestrator: 'harmony_grpo_7b',
      subAgent: '120b',
      subAgentModel: '120b',
      source: { kind: 'dataset', name: 'aime24' },
    });
  });

  it('claims nothing for names that do not follow the pattern', () => {
    expect(parseCaseName('my_traces.json')).toEqual({ name: 'my_traces' });
    expect(parseCaseName('slides.json')).toEqual({ name: 'slides' });
    expect(caseBaseName('C:\\runs\\x.sample.json')).toBe('x');
  });
});
