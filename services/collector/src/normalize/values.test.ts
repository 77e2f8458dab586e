import { describe, expect, it } from 'vitest';
import { canonicalArguments, contentText, parseDeepJson, takeIndexed } from './values.ts';

describe('JSON-in-strings', () => {
  it('canonicalizes arguments from objects, JSON strings and double-encoded JSON', () => {
    expect(canonicalArguments({ city: 'Paris', days: 3 })).toBe('{"city":"Paris","days":3}');
    expect(canonicalArguments('{ "city" : "Paris" }')).toBe('{"city":"Paris"}');
    expect(canonicalArguments(JSON.stringify(JSON.stringify({ a: [1, 2] })))).toBe('{"a":[1,2]}');
    expect(canonicalArguments(JSON.stringify(JSON.stringify(JSON.stringify({ a: 1 }))))).toBe('{"a":1}');
    expect(canonicalArguments(undefined)).toBe('{}');
    expect(canonicalArguments('{"city": "Par')).toBe('{"city": "Par');
    expect(canonicalArguments('Paris')).toBe('Paris');
    expect(canonicalArguments('"Paris"')).toBe('"Paris"');
  });

  it('reads results as text the same way whatever the encoding', () => {
    expect(contentText('"rainy, 14C"')).toBe('rainy, 14C');
    expect(contentText('rainy')).toBe('rainy');
    expect(contentText({ temp: 14 })).toBe('{"temp":14}');
    expect(contentText('{"temp": 14}')).toBe('{"temp":14}');
    expect(contentText(14)).toBe('14');
    expect(contentText(null)).toBe('');
    expect(contentText('[not json')).toBe('[not json');
  });

  it('unwraps nested JSON strings up to three levels', () => {
    expect(parseDeepJson('"\\"[1]\\""')).toEqual([1]);
    expect(parseDeepJson(5)).toBe(5);
  });

  it('groups indexed keys by numeric index, in order, and removes them', () => {
    const attrs: Record<string, unknown> = { 'p.10.role': 'user', 'p.2.role': 'system', 'p.2.tool_calls.0.id': 'c', 'p.x.role': 'no', other: 1 };
    expect(takeIndexed(attrs, 'p')).toEqual([{ role: 'system', 'tool_calls.0.id': 'c' }, { role: 'user' }]);
    expect(attrs).toEqual({ 'p.x.role': 'no', other: 1 });
  });
});
