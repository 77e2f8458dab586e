import { describe, expect, it } from 'vitest';
import type { Unit } from '../../contracts/schemas/index.ts';
import { MonitorSchema, sampleKey, type Monitor } from './monitor.ts';
import { describeNoChecks, planUnit, scoringPlan } from './scoring-plan.ts';

const unit = (over: Partial<Unit>): Unit => ({
  schema_version: 1, unit_id: 'u', kind: 'trace', trace_ids: [], agent_name: 'a', agent_version: 'v1', service: 's', environment: 'prod', conversation_id: null, model: null,
  model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null,
  simulation_message_history: null, usage: {}, errors: [], truncated: false, span_count: 0, start_time_ms: 0, end_time_ms: 0, assembled_at_ms: 0, ...over,
});
const monitor = (over: Partial<Monitor> & Pick<Monitor, 'name' | 'checks'>, project = 'p'): Monitor =>
  MonitorSchema.parse({ filters: {}, sample_rate: 1, enabled: true, project, created_at_ms: 0, updated_at_ms: 0, ...over });
const defaults = { trace: ['loop_guard', 'task_completed'], session: ['session_goal'] };

// Two ids on either side of a 50% sample (found by their hash, so the test says which is which).
const ids = Array.from({ length: 50 }, (_, i) => `unit-${i}`);
const inHalf = ids.find((id) => sampleKey(id) < 0.5)!;
const outOfHalf = ids.find((id) => sampleKey(id) >= 0.5)!;

describe('scoring plan', () => {
  it('runs the defaults, by kind of unit, while the project has no monitor', () => {
    const plan = scoringPlan('p', [monitor({ name: 'elsewhere', checks: ['x'] }, 'q')], [], defaults);
    expect(plan.mode).toBe('defaults');
    expect(planUnit(plan, unit({}))).toEqual({ checks: [{ name: 'loop_guard', monitor: null }, { name: 'task_completed', monitor: null }], reason: null });
    expect(planUnit(plan, unit({ kind: 'session' })).checks.map((c) => c.name)).toEqual(['session_goal']);
    const none = planUnit(scoringPlan('p', [], [], { trace: ['loop_guard'], session: [] }), unit({ kind: 'session' }));
    expect(none).toEqual({ checks: [], reason: { kind: 'no_default_checks', unit_kind: 'session' } });
    expect(describeNoChecks(none.reason!)).toBe('No check runs on session units: the project has no monitor and TRACECHECK_SESSION_CHECKS is empty.');
  });

  it('lets monitors decide once one exists: another agent gets nothing, and is told which monitors exist', () => {
    const m = monitor({ name: 'weather', checks: ['word_count_code'], filters: { agent: 'weather-bot' } });
    const plan = scoringPlan('p', [m], [], defaults);
    expect(plan.mode).toBe('monitors');
    expect(planUnit(plan, unit({ agent_name: 'weather-bot' })).checks).toEqual([{ name: 'word_count_code', monitor: m }]);
    const other = planUnit(plan, unit({ agent_name: 'travel-bot' }));
    expect(other).toEqual({ checks: [], reason: { kind: 'no_monitor_matches', monitors: ['weather'], disabled: [] } });
    expect(describeNoChecks(other.reason!)).toBe('No monitor matches this unit, so no check runs on it: once a project has monitors, they decide. Monitors: weather.');
  });

  it('names a disabled monitor that would match', () => {
    const plan = scoringPlan('p', [monitor({ name: 'off', checks: ['x'], enabled: false }), monitor({ name: 'b', checks: ['y'], filters: { agent: 'b' } })], [], defaults);
    const r = planUnit(plan, unit({}));
    expect(r.reason).toEqual({ kind: 'no_monitor_matches', monitors: ['off', 'b'], disabled: ['off'] });
    expect(describeNoChecks(r.reason!)).toBe('No monitor matches this unit, so no check runs on it: once a project has monitors, they decide. Monitors: off, b (off would match but is disabled).');
  });

  it('says sampled out when a matching monitor leaves the unit out of its sample, by the same hash the scorer uses', () => {
    const plan = scoringPlan('p', [monitor({ name: 'half', checks: ['x'], sample_rate: 0.5 })], [], defaults);
    expect(planUnit(plan, unit({ unit_id: inHalf })).checks.map((c) => c.name)).toEqual(['x']);
    const out = planUnit(plan, unit({ unit_id: outOfHalf }));
    expect(out.reason).toEqual({ kind: 'sampled_out', monitors: [{ name: 'half', sample_rate: 0.5 }] });
    expect(describeNoChecks(out.reason!)).toBe('Sampled out: monitor half scores 50% of the units it matches, and this unit is outside the sample (chosen by a hash of its id, so it stays out).');
  });

  it('takes each check once, from the first monitor naming it; file monitors count for every project', () => {
    const a = monitor({ name: 'a', checks: ['x', 'y'] });
    const file = monitor({ name: 'file', checks: ['y', 'z'] }, '*');
    const plan = scoringPlan('p', [a], [file], defaults);
    expect(planUnit(plan, unit({})).checks.map((c) => [c.name, c.monitor?.name])).toEqual([['x', 'a'], ['y', 'a'], ['z', 'file']]);
    expect(scoringPlan('q', [], [file], defaults).mode).toBe('monitors');
  });

  it('never scores a simulation record', () => {
    expect(planUnit(scoringPlan('p', [], [], defaults), unit({ simulation_record: true }))).toEqual({ checks: [], reason: { kind: 'simulation_record' } });
  });
});
