import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
