import { describe as group, expect, it } from 'vitest';
import { describe, ERRORS, problemOf } from './errors.ts';

group('the error table', () => {
  it('writes `sentence: detail`, or the sentence alone with a full stop', () => {
    expect(problemOf('E_FETCH_TIMEOUT', 'no answer in 30 s')).toEqual({
      code: 'E_FETCH_TIMEOUT',
      message: 'The server took too long to answer: no answer in 30 s',
    });
    expect(problemOf('E_ROLES_NOT_FOUND')).toEqual({
      code: 'E_ROLES_NOT_FOUND',
      message: 'This role pool version is not stored in this browser.',
    });
    expect(describe('E_ROLES_SCHEMA', 'roles[0].name must not be empty')).toBe(
      'The role pool breaks a rule: roles[0].name must not be empty',
    );
  });

  it('has one well-formed sentence per code', () => {
    for (const [code, sentence] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^E_[A-Z_]+$/);
      expect(sentence).toMatch(/^[A-Z].*[^.\s]$/);
    }
  });
});
