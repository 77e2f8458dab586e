import { describe, expect, it } from 'vitest';
import { parsePythonRepr } from './python-repr.ts';

describe('parsePythonRepr', () => {
  it('reads strings with both quotes and escapes, numbers, constants, lists, tuples and dicts', () => {
    expect(parsePythonRepr(`{'a': "it's", 'b': 'say \\'hi\\'\\n\\u00b0\\x41', 'n': -1.5e2, 't': (1,), 'l': [None, True, False]}`)).toEqual({
      a: "it's",
      b: "say 'hi'\n°A",
      n: -150,
      t: [1],
      l: [null, true, false],
    });
  });

  it('reads pydantic-style objects with keyword arguments', () => {
    expect(parsePythonRepr("ResponseFunctionToolCall(arguments='{\"city\": \"Paris\"}', call_id='call_1', status=None)")).toEqual({
      __type: 'ResponseFunctionToolCall',
      arguments: '{"city": "Paris"}',
      call_id: 'call_1',
      status: null,
    });
  });

  it('answers undefined for text that is not one literal', () => {
    for (const text of ["{'a': 1} trailing", "'unterminated", 'f(1)', "{'a' 1}", 'os.system("x")', '[' .repeat(100) + ']'.repeat(100)]) {
      expect(parsePythonRepr(text)).toBeUndefined();
    }
  });
});
