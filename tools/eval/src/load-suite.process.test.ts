import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite } from './load-suite.ts';
import { parseOverrides } from './overrides.ts';
import { expandSweep } from './variants.ts';

function suite(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-load-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return join(dir, 'tracecheck.yaml');
}

const MATH = 'name: math\nmodel: m1\ntemperature: 0\nprompt: "What is {a} + {b}?"\ndefaults: ../tests.yaml\n';
const TESTS = 'metrics: [exact_match]\nreferences:\n  - {input: {a: 1, b: 2}, expected: 3}\n  - {id: x, input: {a: 2, b: 2}, expected: 4, skip: true}\n';

describe('loadSuite', () => {
  it('composes defaults, main-config defaults, sweeps and pass-through parameters', () => {
    const path = suite({
      'tracecheck.yaml': 'prompts: prompts/*.yaml\nn_tries: 3\ndefaults:\n  max_tokens: 10\nsweep:\n  temperature: [0, 1]\n',
      'prompts/math.yaml': MATH + 'top_p: 0.5\nsweep:\n  model: [m1, m2]\n',
      'tests.yaml': TESTS,
    });
    const s = loadSuite(path);
    const p = s.prompts[0];
    expect(p.name).toBe('math');
    expect(p.params).toEqual({ model: 'm1', temperature: 0, max_tokens: 10, top_p: 0.5 });
    expect(p.sweep).toEqual({ model: ['m1', 'm2'] });
    expect(p.nTries).toBe(3);
    expect(p.references.map((r) => [r.id, r.skip])).toEqual([['1', false], ['x', true]]);
    expect(p.metrics.map((m) => m.kind)).toEqual(['exact_match']);
  });

  it('the prompt sweep replaces the main sweep per key; the command line fixes or sweeps parameters', () => {
    const path = suite({
      'tracecheck.yaml': 'prompts: prompts/*.yaml\nsweep:\n  temperature: [0, 1]\n',
      'prompts/math.yaml': MATH,
      'tests.yaml': TESTS,
    });
    expect(loadSuite(path).prompts[0].sweep).toEqual({ temperature: [0, 1] });
    const fixed = loadSuite(path, parseOverrides(['temperature=0.5', 'n_tries=2']));
    expect(fixed.prompts[0].sweep).toEqual({});
    expect(fixed.prompts[0].params.temperature).toBe(0.5);
    expect(fixed.prompts[0].nTries).toBe(2);
    expect(loadSuite(path, parseOverrides(['model=[a,b]'])).prompts[0].sweep).toEqual({ temperature: [0, 1], model: ['a', 'b'] });
  });

  it('prompts=NAME selects prompts', () => {
    const path = suite({
      'tracecheck.yaml': 'prompts: prompts/*.yaml\n',
      'prompts/math.yaml': MATH,
      'prompts/other.yaml': MATH.replace('name: math', 'name: other'),
      'tests.yaml': TESTS,
    });
    expect(loadSuite(path).prompts.map((p) => p.name)).toEqual(['math', 'other']);
    expect(loadSuite(path, { prompts: 'other' }).prompts.map((p) => p.name)).toEqual(['other']);
    expect(() => loadSuite(path, { prompts: 'nope' })).toThrow(/no prompt named nope/);
  });

  it('errors name the file and line', () => {
    const bad = (files: Record<string, string>): string => {
      try {
        loadSuite(suite({ 'tracecheck.yaml': 'prompts: prompts/*.yaml\n', 'tests.yaml': TESTS, ...files }));
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(bad({ 'prompts/math.yaml': 'name: math\nmodel: [unclosed\n' })).toMatch(/prompts\/math\.yaml:\d: invalid YAML/);
    expect(bad({ 'prompts/math.yaml': MATH.replace('{b}', '{c}') })).toMatch(/prompts\/math\.yaml:4: unknown variable \{c\} in template: reference 1 \(\S*tests\.yaml:3\)/);
    expect(bad({ 'prompts/math.yaml': MATH + 'n_tries: 0\n' })).toMatch(/prompts\/math\.yaml:6: n_tries must be a whole number of at least 1/);
    expect(bad({ 'prompts/math.yaml': MATH + 'metrics_rollup: num_passes >\n' })).toMatch(/prompts\/math\.yaml:6: metrics_rollup: unexpected end of expression/);
    expect(bad({ 'prompts/math.yaml': MATH.replace('defaults: ../tests.yaml', 'defaults: ../missing.yaml') })).toMatch(/prompts\/math\.yaml:5: cannot load defaults file \.\.\/missing\.yaml/);
    expect(bad({ 'prompts/math.yaml': 'name: a\nmodel: m\nprompt: hi\nreferences:\n  - input: {}\n    expceted: 1\n' })).toMatch(/prompts\/math\.yaml:6: unknown reference key "expceted"/);
    expect(bad({ 'prompts/math.yaml': 'name: a\nprompt: hi\nreferences:\n  - input: {}\n' })).toMatch(/prompts\/math\.yaml:1: prompt "a" needs a model/);
    expect(bad({ 'prompts/math.yaml': 'name: a\nmodel: m\nprompt: hi\ndefaults: math.yaml\n' })).toMatch(/defaults cycle/);
  });

  it("loads llmeval's documented layout with no prompts key: prompts/tests/ holds references, not prompts", () => {
    // llmeval.yaml, prompts/math.yaml and prompts/tests/math.yaml exactly as llmeval's docs draw them.
    const path = suite({
      'tracecheck.yaml': 'n_tries: 1\n',
      'prompts/math.yaml':
        'defaults:\n  - tests/math\nname: math\nmodel: gpt-4-16k\ntemperature: 0.0\nvariables:\n  - name: a\n  - name: b\nmessages:\n  - role: "human"\n    content: "What is {a} + {b}? Only return the answer without any explanation"\n',
      'prompts/tests/math.yaml': 'metrics:\n  - exact_match\nreferences:\n  - input:\n      a: 4\n      b: 5\n    expected: 9\n',
    });
    const s = loadSuite(path);
    expect(s.prompts.map((p) => p.name)).toEqual(['math']);
    expect(s.prompts[0].references.map((r) => [r.input, r.expected])).toEqual([[{ a: 4, b: 5 }, 9]]);
  });

  it('literal braces and JSON survive templates', () => {
    const path = suite({
      'tracecheck.yaml': 'prompts: prompts/*.yaml\n',
      'prompts/json.yaml': 'name: j\nmodel: m\nprompt: \'Reply {{"x": {a}}} or {"k": 1}\'\nreferences:\n  - input: {a: 1}\n',
    });
    const p = loadSuite(path).prompts[0];
    expect(p.source.messages![0].template.variables).toEqual(['a']);
  });
});

describe('expandSweep', () => {
  it('is a grid in key order', () => {
    expect(expandSweep({ model: 'x', top_p: 1 }, { model: ['a', 'b'], temperature: [0, 1] })).toEqual([
      { model: 'a', top_p: 1, temperature: 0 },
      { model: 'a', top_p: 1, temperature: 1 },
      { model: 'b', top_p: 1, temperature: 0 },
      { model: 'b', top_p: 1, temperature: 1 },
    ]);
  });
});
