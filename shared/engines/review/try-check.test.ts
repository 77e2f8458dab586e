import { describe, expect, it } from 'vitest';
import type { Unit } from '../../contracts/schemas/index.ts';
import { createCheckRegistry } from '../checks/index.ts';
import type { Review } from './schemas.ts';
import { tryCheck } from './try-check.ts';

// A new version tried against people's reviews, with the catalog's loop_guard (deterministic) as
// the new version: the reviewed verdicts were all "fail"; people say one unit really loops.

const unit = (id: string, loops: boolean): Unit => ({
  schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'a', agent_version: 'v1', service: 's', environment: 'prod', conversation_id: null,
  model: 'm', model_input: [{ role: 'user', content: 'where is my order?' }], model_output: 'On its way.',
  message_history: loops ? [{ role: 'user', content: 'where?' }, ...[1, 2, 3].flatMap(() => [{ role: 'assistant' as const, content: 'Let me check that for you right now.' }, { role: 'user' as const, content: 'ok' }])] : [{ role: 'user', content: 'where?' }, { role: 'assistant', content: 'On its way.' }],
  tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 },
  errors: [], truncated: false, span_count: 1, start_time_ms: 1, end_time_ms: 2, assembled_at_ms: 3, project: 'p',
});
const review = (unitId: string, reviewer: string, agrees: boolean): Review => ({
  project: 'p', unit_id: unitId, unit_revision: 1, check: 'loop_guard', check_version: 'old', check_passed: false, check_value: 0, agrees, verdict_value: null,
  expected: null, reviewer, note: '', labels: [], queue_id: null, created_at_ms: 1, revision: 1,
});

describe('tryCheck', () => {
  it('puts the new verdicts beside the reviewed ones, lists the units that differ and those it could not score', async () => {
    const units = new Map([['loops', unit('loops', true)], ['fine', unit('fine', false)]]);
    const store = { getUnit: (id: string) => Promise.resolve(units.get(id) ?? null) };
    const check = createCheckRegistry().get('loop_guard')!;
    const reviews = [review('loops', 'ann', true), review('fine', 'ann', false), review('fine', 'bob', false), review('gone', 'ann', false), { ...review('fine', 'ann', true), check: 'other' }];
    const t = await tryCheck(store, reviews, { project: 'p', check, ctx: { judge: null, nowMs: () => 5 }, nowMs: 5 });
    expect(t.units).toBe(3);
    expect(t.current.binary?.confusion).toEqual({ fail_fail: 1, fail_pass: 3, pass_fail: 0, pass_pass: 0 });
    expect(t.candidate.version).toBe(check.version);
    expect(t.candidate.binary?.confusion).toEqual({ fail_fail: 1, fail_pass: 0, pass_fail: 0, pass_pass: 2 });
    expect(t.new_agrees).toEqual({ successes: 3, total: 3 });
    expect(t.differ.map((d) => [d.unit_id, d.human, d.current_passed, d.new_passed])).toEqual([['fine', true, false, true]]);
    expect(t.not_scored).toEqual([{ unit_id: 'gone', error: 'the unit is no longer stored' }]);
  });
});
