import { describe, expect, it } from 'vitest';
import { checkSlug, createCheckRegistry, type JudgeClient } from '../checks/index.ts';
import { executeTestRun, renderModelTemplate, seedText } from './execute.ts';
import type { ScenarioSetDoc } from './docs.ts';

const scenario: ScenarioSetDoc = { scenario_id: 's', name: 'n', created_at_ms: 0, rows: [{ id: 's:0', input: 'abc', result: 'abc' }, { id: 's:1', input: { q: 1 }, result: null }] };
const ctx = { judge: null, nowMs: () => 0 };
const levenshtein = createCheckRegistry().get('levenshtein_distance')!;

describe('test runs', () => {
  it('fills {scenario_input} and {input}, leaving other names as written; JSON for structured seeds', () => {
    expect(renderModelTemplate('Q: {scenario_input} / {input} / {other}', 'x')).toBe('Q: x / x / {other}');
    expect([seedText('a'), seedText({ q: 1 }), seedText(null), seedText(undefined)]).toEqual(['a', '{"q":1}', null, null]);
  });

  it('slugs display names, and keeps a name that is one', () => {
    expect(['Example Uploaded Check', 'demo.summaryUnder256', '2 fast', 'word_count', '--'].map(checkSlug)).toEqual(['example_uploaded_check', 'demo_summaryunder256', 'check_2_fast', 'word_count', 'check']);
  });

  it('scores the outputs a client gave; a row without one, or a failed model call, is not_run with the reason', async () => {
    const given = await executeTestRun(scenario, { kind: 'given', outputs: new Map([['s:0', 'abd']]) }, [levenshtein], ctx);
    expect(given.map((r) => [r.id, r.scenario_input, r.model_output, r.error, r.scores.levenshtein_distance.status, r.scores.levenshtein_distance.value])).toEqual([
      ['s:0', 'abc', 'abd', null, 'ok', 1],
      ['s:1', '{"q":1}', null, 'the client gave no output for data point s:1', 'not_run', null],
    ]);
    const failing: JudgeClient = { complete: () => Promise.reject(new Error('503 from the model')) };
    const failed = await executeTestRun(scenario, { kind: 'generation', model: { user_prompt_template: '{input}' }, client: failing }, [levenshtein], ctx);
    expect(failed.map((r) => r.scores.levenshtein_distance.error)).toEqual(['the model failed: 503 from the model', 'the model failed: 503 from the model']);
    const none = await executeTestRun(scenario, { kind: 'generation', model: {}, client: null }, [], ctx);
    expect(none[0].error).toBe('no model configured: set OPENAI_BASE_URL (or OPENAI_API_KEY) to run a registered chat model');
  });
});
