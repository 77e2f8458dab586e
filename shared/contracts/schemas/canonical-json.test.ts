import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonText } from './canonical-json.ts';

// The text stored content hashes were computed from (before it was written straight to text):
// JSON.stringify of a copy with sorted keys and no undefined members. Every stored hash depends on
// canonicalJson giving exactly this, byte for byte.
function reference(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(canonical(value)) ?? 'null';
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: 'x' }, e: undefined })).toBe('{"a":{"c":"x","d":[3,{"z":1}]},"b":1}');
  });

  it('writes integer keys first, ascending, as JSON.stringify of any object does', () => {
    expect(canonicalJson({ b: 1, 10: 'ten', 9: 'nine', a: 2, '09': 'padded' })).toBe('{"9":"nine","10":"ten","09":"padded","a":2,"b":1}');
  });

  it('writes what has no JSON form as JSON.stringify does: null in arrays, left out of objects', () => {
    expect(canonicalJson([undefined, () => 1, Symbol('s'), Number.NaN, -0])).toBe('[null,null,null,null,0]');
    expect(canonicalJson({ f: () => 1, s: Symbol('s'), n: null })).toBe('{"n":null}');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('gives the same text as the key-sorted copy did, for any value', () => {
    const values = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      withObjectString: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(values, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes keys past its kept quoted keys (more than 4,096, or long) as any other', () => {
    const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}\u2028"`, i]));
    const long = { ['x'.repeat(65)]: 1, ['\u0000'.repeat(70)]: 2 };
    expect(canonicalJson(many)).toBe(reference(many));
    expect(canonicalJson(many)).toBe(reference(many));
    expect(canonicalJson(long)).toBe(reference(long));
  });

  it('writes objects of shapes seen before (kept key orders) as the first time, past the kept orders too', () => {
    // One slot (same count and first key) with more orders than it keeps, and more slots than are kept.
    const shapes = Array.from({ length: 6 }, (_, i) => ({ m: 1, [`k${i}`]: 2, a: { y: i, x: [i] }, ['0']: 'zero' }));
    const slots = Array.from({ length: 1_100 }, (_, i) => ({ [`s${i}`]: i, b: null, a: 'x' }));
    const all = [...shapes, ...slots, ...shapes, ...slots];
    for (const value of all) expect(canonicalJson(value)).toBe(reference(value));
    // The same keys in another insertion order are another list, written sorted all the same.
    expect(canonicalJson({ b: 1, a: 2, c: 3 })).toBe('{"a":2,"b":1,"c":3}');
    expect(canonicalJson({ a: 2, b: 1, c: 3 })).toBe('{"a":2,"b":1,"c":3}');
    expect(canonicalJson({ b: 1, c: 3, a: 2 })).toBe('{"a":2,"b":1,"c":3}');
    expect(canonicalJson({ b: undefined, a: 2, c: 3 })).toBe('{"a":2,"c":3}');
    expect(canonicalJson({ b: 1, a: undefined, c: undefined })).toBe('{"b":1}');
  });

  it('compares JSON texts regardless of key order and spacing', () => {
    expect(canonicalJsonText('{ "b": 2, "a": 1 }')).toBe(canonicalJsonText('{"a":1,"b":2}'));
    expect(canonicalJsonText('  not json ')).toBe('not json');
  });
});

describe('canonicalJson with texts already written', () => {
  it('uses the given text of an object found by identity, and gives the same text as without', () => {
    const messages = [{ role: 'user', content: 'hi', extra: undefined }];
    const unit = { z: 1, message_history: messages, a: [messages] };
    const known = new Map([[messages, canonicalJson(messages)]]);
    expect(canonicalJson(unit, known)).toBe(canonicalJson(unit));
    expect(canonicalJson(unit, new Map([[messages, '"stand-in"']]))).toBe('{"a":["stand-in"],"message_history":"stand-in","z":1}');
  });
});
