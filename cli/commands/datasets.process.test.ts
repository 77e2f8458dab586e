import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDuckDbStore } from '../../shared/adapters/store/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { putDataset } from '../../shared/engines/review/index.ts';
import { datasetsCommand } from './datasets.ts';
import { loadSuite } from '../../tools/eval/src/load-suite.ts';
import type { Unit } from '../../shared/contracts/schemas/index.ts';
import { datasetItem, toJsonl, toLlmevalTests, type Dataset } from '../../shared/engines/review/index.ts';
import type { Review } from '../../shared/engines/review/index.ts';

const unit = (id: string, question: string, output: string): Unit => ({
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'booking-agent', agent_version: 'v2', service: 's', environment: 'prod', conversation_id: null,
    model: 'm', model_input: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }], model_output: output, message_history: [], tool_calls: [],
    tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [],
    truncated: false, span_count: 1, start_time_ms: 1, end_time_ms: 2, assembled_at_ms: 3, project: 'shop',
});

const wrong = (unitId: string, expected: string | null): Review => ({
  project: 'shop', unit_id: unitId, unit_revision: 1, check: 'task_completed', check_version: 'j1', check_passed: false, check_value: 0, agrees: false,
  verdict_value: null, expected, reviewer: 'ann', note: 'it did book', labels: ['judge-wrong'], queue_id: null, created_at_ms: 5, revision: 1,
});

describe('dataset exports', () => {
  const dataset: Dataset = {
    name: 'v2-wrong', version: 1, project: 'shop', created_at_ms: 10, source: 'queue q1: marked wrong',
    items: [
      datasetItem(unit('u1', 'Book a table for 2 at 7pm', 'Booked: 7pm, 2 people.'), 1, [wrong('u1', 'Booked a table for 2 at 19:00.')]),
      datasetItem(unit('u2', "What's {not} a variable: it's \"quoted\"", 'Sorry.'), 1, [wrong('u2', null)]),
    ],
  };

  it('writes llmeval tests that the eval loader reads unchanged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-dataset-'));
    try {
      mkdirSync(join(dir, 'prompts'));
      mkdirSync(join(dir, 'tests'));
      writeFileSync(join(dir, 'tests', 'v2-wrong.yaml'), toLlmevalTests(dataset));
      writeFileSync(join(dir, 'prompts', 'booking.yaml'), 'name: booking\nmodel: mock-accurate\nprompt:\n  content: "{question}"\ndefaults: ../tests/v2-wrong.yaml\nmetrics:\n  - exact_match\n');
      writeFileSync(join(dir, 'llmeval.yaml'), 'prompts: prompts/*.yaml\ncache: false\n');
      const suite = loadSuite(join(dir, 'llmeval.yaml'));
      const refs = suite.prompts[0].references;
      expect(refs.map((r) => [r.id, r.input.question, r.expected, r.hasExpected])).toEqual([
        ['u1', 'Book a table for 2 at 7pm', 'Booked a table for 2 at 19:00.', true],
        ['u2', "What's {not} a variable: it's \"quoted\"", null, false],
      ]);
      expect(JSON.parse(refs[0].input.messages as string)).toEqual(dataset.items[0].model_input);
      expect(refs[0].input.output).toBe('Booked: 7pm, 2 people.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes one JSON object per unit with its verdicts', () => {
    const lines = toJsonl(dataset).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.id, l.expected, (l.verdicts as { agrees: boolean }[])[0].agrees])).toEqual([
      ['u1', 'Booked a table for 2 at 19:00.', false],
      ['u2', null, false],
    ]);
  });
});

describe('tracecheck datasets', () => {
  it('lists, and exports a stored version to llmeval tests the eval loader reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-datasets-cli-'));
    try {
      const store = createDuckDbStore({ path: join(dir, 'tracecheck.duckdb'), log: createSilentLogger() });
      await store.start();
      await putDataset(store, { name: 'v2-wrong', project: 'shop', created_at_ms: 10, source: 'by id', items: [datasetItem(unit('u1', 'Book a table', 'Booked.'), 1, [wrong('u1', 'Booked for 2.')])] });
      await store.shutdown();
      const run = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
        const out = new PassThrough();
        const err = new PassThrough();
        let stdout = '';
        let stderr = '';
        out.on('data', (d: Buffer) => (stdout += d.toString()));
        err.on('data', (d: Buffer) => (stderr += d.toString()));
        const code = await datasetsCommand.run(argv, { stdin: Readable.from(['']), stdout: out, stderr: err, env: { TRACECHECK_DATA_DIR: dir, TRACECHECK_LOG_LEVEL: 'error' } });
        return { code, stdout, stderr };
      };
      expect((await run(['list', '--project', 'shop'])).stdout).toMatch(/^v2-wrong@1 {2}1 units {2}1970-01-01T00:00:00.010Z {2}by id\n$/);
      expect((await run(['export', 'v2-wrong@2', '--project', 'shop', '--format', 'llmeval', '--out', dir])).code).toBe(1);
      expect((await run(['export', 'v2-wrong', '--format', 'csv', '--out', dir])).code).toBe(2);
      const exported = await run(['export', 'v2-wrong@1', '--project', 'shop', '--format', 'llmeval', '--out', join(dir, 'suite')]);
      const suite = join(dir, 'suite');
      expect(exported).toEqual({ code: 0, stdout: '', stderr: `wrote 1 units of v2-wrong@1 to ${suite}/llmeval.yaml, ${suite}/prompts/v2-wrong.yaml, ${suite}/tests/v2-wrong.yaml\n` });
      // The suite as written: its one prompt asks each question again and scores it with the reviewed check.
      const [prompt] = loadSuite(join(suite, 'llmeval.yaml')).prompts;
      expect([prompt?.name, prompt?.params.model, prompt?.metrics.map((m) => m.name)]).toEqual(['v2-wrong', 'gpt-4o-mini', ['task_completed']]);
      expect(prompt?.references.map((r) => [r.id, r.input.question, r.expected])).toEqual([['u1', 'Book a table', 'Booked for 2.']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
