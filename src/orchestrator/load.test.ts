import { describe, expect, it } from 'vitest';
import { MODEL_FOLDER_FORMAT } from '../lm/index.ts';
import { BATON_MODEL_FOLDER_FORMAT, classify, tokenizerMismatch } from './load.ts';

describe('load helpers', () => {
  it('knows the folder format the lm writer stamps into config.json', () => {
    expect(BATON_MODEL_FOLDER_FORMAT).toBe(MODEL_FOLDER_FORMAT);
  });

  it('a tokenizer fits when it covers 90% of the outputs and overflows none', () => {
    expect(tokenizerMismatch(151_665, 151_936)).toBeNull();
    expect(tokenizerMismatch(281, 281)).toBeNull();
    expect(tokenizerMismatch(282, 281)).toMatch(/282 tokens but the model only 281 outputs/);
    expect(tokenizerMismatch(200, 281)).toMatch(/belongs to another model/);
  });

  it('classifies thrown load errors into codes, naming the file when the message does', () => {
    const notFound = Object.assign(
      new Error('Could not locate file: "http://h/o/n/resolve/main/onnx/model_q4.onnx".'),
      {
        name: 'ModelFileNotFoundError',
      },
    );
    expect(classify(notFound, 'model', 'config.json')).toMatchObject({
      code: 'E_MODEL_NOT_FOUND',
      path: 'onnx/model_q4.onnx',
    });
    expect(classify(new TypeError('fetch failed'), 'config')).toMatchObject({ code: 'E_MODEL_NETWORK' });
    expect(classify(new SyntaxError('Unexpected token'), 'tokenizer', 'tokenizer.json')).toMatchObject({
      code: 'E_MODEL_FILE',
      path: 'tokenizer.json',
    });
    const proto = classify(
      new Error('Load model failed: protobuf parsing failed.'),
      'model',
      'onnx/model.onnx',
    );
    expect(proto.code).toBe('E_MODEL_FILE');
    expect(proto.message).toMatch(/clear the model cache/);
  });
});
