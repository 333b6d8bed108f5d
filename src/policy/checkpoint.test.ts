import { describe, expect, it } from 'vitest';
import {
  fieldsOf,
  lazyParams,
  parseCheckpoint,
  serializeCheckpoint,
  PolicyCheckpointSchema,
} from './checkpoint.ts';
import { randomCheckpoint } from './network.ts';
import { DEFAULT_POOL } from './roles.ts';

describe('lazyParams', () => {
  const eager = { ...randomCheckpoint(DEFAULT_POOL, 3), meta: { iterations: 4 } };
  const counted = () => {
    const calls = { n: 0 };
    const cp = lazyParams(fieldsOf(eager), () => {
      calls.n++;
      return structuredClone(eager.params);
    });
    return { cp, calls };
  };

  it('makes the parameters on first read only, then keeps them', () => {
    const { cp, calls } = counted();
    expect(calls.n).toBe(0);
    expect(cp.name).toBe(eager.name);
    expect(cp.config).toBe(eager.config);
    expect(calls.n).toBe(0);
    const first = cp.params;
    expect(calls.n).toBe(1);
    expect(cp.params).toBe(first);
    expect(first).toEqual(eager.params);
    expect(calls.n).toBe(1);
  });

  it('reads as a plain checkpoint when spread, serialised, cloned or parsed', () => {
    expect({ ...counted().cp }).toEqual(eager);
    expect(JSON.stringify(counted().cp)).toBe(JSON.stringify(eager));
    expect(structuredClone(counted().cp)).toEqual(eager);
    expect(PolicyCheckpointSchema.parse(counted().cp)).toEqual(PolicyCheckpointSchema.parse(eager));
    const back = parseCheckpoint(serializeCheckpoint(counted().cp));
    expect(back.ok).toBe(true);
    expect(back).toEqual(parseCheckpoint(serializeCheckpoint(eager)));
    expect(Object.keys(counted().cp).sort()).toEqual(Object.keys(eager).sort());
  });

  it('fieldsOf copies every other field without reading the parameters', () => {
    const { cp, calls } = counted();
    const f = fieldsOf(cp);
    expect(calls.n).toBe(0);
    expect('params' in f).toBe(false);
    expect(f).toEqual(fieldsOf(eager));
    const { params: _p, ...rest } = eager;
    expect(f).toEqual(rest);
  });
});
