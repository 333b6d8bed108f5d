import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { orchestratorTrainConfig } from './orchestrator-config.ts';
import { parseOrchestratorCheckpoint, stateOfCheckpoint } from './orchestrator-checkpoint.ts';
import { readOrchestratorModel } from './orchestrator-model.ts';

const DIR = new URL('../../models/baton-orchestrator-tiny/', import.meta.url);
const files = {
  config: readFileSync(new URL('config.json', DIR), 'utf8'),
  tokenizer: readFileSync(new URL('tokenizer.json', DIR), 'utf8'),
  tokenizerConfig: readFileSync(new URL('tokenizer_config.json', DIR), 'utf8'),
  onnx: new Uint8Array(readFileSync(new URL('onnx/model.onnx', DIR))),
};

describe('orchestrator model folders', () => {
  it('reads the shipped folder’s weights, tokenizer and query length', () => {
    const m = readOrchestratorModel(files);
    expect(m.weights.config.nPositions).toBe(256);
    expect(m.weights.params.get('wte')!.length).toBe(1093 * 64);
    expect(m.maxQueryTokens).toBe(64);
    expect(m.tokenizer.tokens[m.endId]).toBe('<|end|>');
    expect(m.padId).toBe(0);
  });

  it('refuses a folder of the wrong format with the reason', () => {
    const hub = JSON.stringify({ model_type: 'gpt2', vocab_size: 50257, n_positions: 1024, n_embd: 768 });
    expect(() => readOrchestratorModel({ ...files, config: hub })).toThrow(
      /config\.json: .*baton\.tiny-gpt\/1/,
    );
    const llama = files.config.replace('"model_type": "gpt2"', '"model_type": "llama"');
    expect(() => readOrchestratorModel({ ...files, config: llama })).toThrow(/config\.json/);
    const q4 = new Uint8Array(readFileSync(new URL('onnx/model_q4.onnx', DIR)));
    expect(() => readOrchestratorModel({ ...files, onnx: q4 })).toThrow(/no fp32 weight/);
    expect(() => readOrchestratorModel({ ...files, onnx: Uint8Array.of(1, 2, 3) })).toThrow(
      /onnx\/model\.onnx/,
    );
    expect(() => readOrchestratorModel({ ...files, tokenizer: '{}' })).toThrow(/tokenizer\.json/);
    expect(() => readOrchestratorModel({ ...files, tokenizerConfig: '[1]' })).toThrow(
      /tokenizer_config\.json/,
    );
  });
});

describe('orchestrator training config and checkpoints', () => {
  it('validates every constant with the path of each problem', () => {
    expect(orchestratorTrainConfig({}).groupSize).toBe(4);
    expect(() => orchestratorTrainConfig({ groupSize: 1 })).toThrow(/groupSize/);
    expect(() => orchestratorTrainConfig({ lambda: 1, clipEps: 0 })).toThrow(/lambda: .*; clipEps/);
    expect(() => orchestratorTrainConfig({ temprature: 0.7 })).toThrow(/temprature/);
    expect(() => orchestratorTrainConfig({ values: [13] })).toThrow(/values\.0/);
  });

  it('refuses a bad checkpoint with the reason', () => {
    expect(parseOrchestratorCheckpoint('{')).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/not JSON/)],
    });
    const bad = parseOrchestratorCheckpoint(JSON.stringify({ format: 'baton.train/1' }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems.join('\n')).toMatch(/format/);
    const ok = parseOrchestratorCheckpoint(
      JSON.stringify({
        format: 'baton.orchestrator-grpo/1',
        model: 'm',
        config: orchestratorTrainConfig({}),
        iteration: 1,
        history: [],
        params: 'AAAAAAAAAAA=',
        m: 'AAAAAAAAAAA=',
        v: 'AAAAAAAAAAA=',
        t: 1,
      }),
    );
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(() => stateOfCheckpoint(ok.checkpoint, [{ shape: [3] }])).toThrow(/another model/);
    expect(stateOfCheckpoint(ok.checkpoint, [{ shape: [2] }]).params.length).toBe(2);
    expect(() => stateOfCheckpoint({ ...ok.checkpoint, params: 'A' }, [{ shape: [2] }])).toThrow(/base64/);
  });
});
