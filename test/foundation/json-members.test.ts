// The member scan that refuses huge objects before JSON.parse must agree with JSON.parse on every
// well-formed text, escapes and nesting included: otherwise a legitimate body could be refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanMembers } from '../../src/http/json-members.js';

function largestObject(value: unknown): number {
  if (Array.isArray(value)) return Math.max(0, ...value.map(largestObject));
  if (value && typeof value === 'object') {
    const members = Object.values(value);
    return Math.max(members.length, ...members.map(largestObject));
  }
  return 0;
}

describe('scanMembers', () => {
  it('counts the members JSON.parse sees, for any JSON text', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), (text) => {
        const parsed = JSON.parse(text);
        const scan = scanMembers(text, 5);
        expect(scan?.largest).toBe(largestObject(parsed));
        const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
        expect(scan?.topLevel).toBe(isObject ? Object.keys(parsed).length : 0);
        // Text order (Object.keys puts integer-like keys first): compare as sets.
        if (isObject) {
          expect(scan?.keys).toHaveLength(Math.min(5, Object.keys(parsed).length));
          for (const key of scan?.keys ?? []) expect(Object.hasOwn(parsed, key)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads keys with escaped quotes and backslashes', () => {
    const text = JSON.stringify({ 'a"b': 1, 'c\\': { 'd\\"': [1, { e: 2 }] }, '{:}': '[,]' });
    expect(scanMembers(text, 10)).toEqual({ largest: 3, topLevel: 3, keys: ['a"b', 'c\\', '{:}'], declaredSeen: 0 });
  });
});
