// Header schemas (src/http/validation.ts): one of optional strings only documents its headers and
// costs no check (Node hands such headers as strings); any constraint is still checked.
import { describe, expect, it } from 'vitest';
import { IfMatchHeaders, IfNoneMatchHeaders } from '../../src/http/schemas.js';
import { validatorCompiler } from '../../src/http/validation.js';

const compile = (schema: object) =>
  validatorCompiler({ schema, httpPart: 'headers', method: 'GET', url: '/' }) as (data: unknown) => boolean | { error?: unknown };

describe('header schemas', () => {
  it('If-Match and If-None-Match are documented, not checked: no value of theirs is refused', () => {
    for (const schema of [IfMatchHeaders, IfNoneMatchHeaders]) {
      const validate = compile(schema);
      expect(validate({ 'if-match': '"1-abc"', 'if-none-match': '*' })).toBe(true);
      expect(validate({})).toBe(true);
      // No check at all: even a value Node never produces (an object) passes, where a compiled check would refuse it.
      expect(validate({ 'if-match': {}, 'if-none-match': {} })).toBe(true);
    }
  });

  it('a header schema that constrains a value (length, required) is still checked', () => {
    const bounded = compile({ type: 'object', properties: { 'x-trace': { type: 'string', maxLength: 3 } } });
    expect(bounded({ 'x-trace': 'abc' })).toBe(true);
    expect(bounded({ 'x-trace': 'abcd' })).toBe(false);
    const required = compile({ type: 'object', properties: { 'x-trace': { type: 'string' } }, required: ['x-trace'] });
    expect(required({})).toBe(false);
  });
});
