import { describe, expect, it } from 'vitest';
import type { RunResult } from '../result-types.ts';
import { renderHtml } from './render-html.ts';
import { renderMarkdown } from './render-markdown.ts';
import { renderTextTables } from './render-text.ts';
import { renderYamlReport } from './render-yaml.ts';
import { buildTables } from './table.ts';

const hostile = '<script>alert(1)</script> | *x* & "q"';

const run: RunResult = {
  runId: 'r1',
  configFile: 'tracecheck.yaml',
  config: { n_tries: 1 },
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  passed: false,
  summary: { rows: 1, passed: 0, failed: 1, skipped: 0, tries: 1, cachedTries: 0, resumedTries: 0 },
  prompts: [
    {
      name: 'p',
      file: 'prompts/p.yaml',
      config: { name: 'p', model: 'm', prompt: 'Say {x}' },
      metrics: ['exact_match', 'len'],
      rollup: 'all',
      nTries: 1,
      rows: [
        {
          prompt: 'p',
          params: { model: 'm', temperature: 1 },
          reference: { id: '1', input: { x: 'hi' }, expected: 'hi', skip: false },
          tries: [
            {
              try: 0,
              actual: hostile,
              metrics: [
                { name: 'exact_match', value: 0, passed: false },
                { name: 'len', value: 0.5, passed: null },
              ],
              passed: false,
              cached: false,
              latencyMs: 3,
            },
          ],
          counts: { num_passes: 0, num_fails: 1, num_skip_passes: 0, num_skip_fails: 0, n_tries: 1 },
          status: 'fail',
        },
      ],
    },
  ],
};

describe('reports', () => {
  const tables = buildTables([run]);

  it('one row per model × parameters × reference, columns per try', () => {
    expect(tables[0].header).toEqual(['model', 'params', 'reference', 'input', 'expected', 'try 1 actual', 'try 1 exact_match', 'try 1 len', 'result']);
    expect(tables[0].rows[0]).toEqual(['m', 'temperature=1', '1', 'x=hi', 'hi', hostile, '0 FAIL', '0.500', 'FAIL (0/1)']);
  });

  it('HTML escapes everything from the run', () => {
    const html = renderHtml([run], tables);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; | *x* &amp; &quot;q&quot;');
  });

  it('Markdown keeps cells inside their column', () => {
    const md = renderMarkdown([run], tables);
    expect(md).toContain('&lt;script&gt;alert(1)&lt;/script&gt; \\| \\*x\\* &amp; "q"');
    expect(md).not.toContain('<script>');
  });

  it('YAML mirrors the prompt with results inlined', () => {
    const yaml = renderYamlReport(run);
    expect(yaml).toContain('prompt: Say {x}');
    expect(yaml).toMatch(/tries:\n\s+- actual: <script>alert\(1\)<\/script> \| \*x\* & "q"\n\s+passed: false\n\s+metrics:\n\s+exact_match:\n\s+value: 0\n\s+passed: false\n\s+len:\n\s+value: 0.5\n\s+passed: null/);
  });

  it('text tables clip long cells to one line', () => {
    const text = renderTextTables(tables);
    expect(text.split('\n')[0]).toBe('p');
    expect(text).toContain('<script>alert(1)</script> | *x* & "q"');
  });
});
