import { describe, expect, it } from 'vitest';
import type { Unit } from '../../contracts/schemas/index.ts';
import { MonitorInputSchema, isSampled, matchesFilters, sampleKey } from './monitor.ts';

const unit = (over: Partial<Unit>): Unit => ({
  schema_version: 1, unit_id: 'u', kind: 'trace', trace_ids: [], agent_name: 'a', agent_version: 'v1', service: 's', environment: 'prod', conversation_id: null, model: null,
  model_input: [], model_output: null, message_history: [], tool_calls: [], tools: [], scenario_input: null, scenario_result: null, simulation_id: null,
  simulation_message_history: null, usage: {}, errors: [], truncated: false, span_count: 0, start_time_ms: 0, end_time_ms: 0, assembled_at_ms: 0, ...over,
});

describe('monitors', () => {
  it('samples by a hash of the unit id: stable, and close to the rate', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `unit-${i}`);
    const inSample = ids.filter((id) => isSampled(id, 0.2));
    expect(inSample.length).toBeGreaterThan(1_880);
    expect(inSample.length).toBeLessThan(2_120);
    expect(ids.filter((id) => isSampled(id, 0.2))).toEqual(inSample);
    expect(sampleKey('unit-1')).toBe(sampleKey('unit-1'));
    expect(isSampled('x', 0)).toBe(false);
    expect(isSampled('x', 1)).toBe(true);
  });

  it('matches agent, version, service, environment, kind and attributes', () => {
    const u = unit({ attributes: { tier: 'gold' } });
    expect(matchesFilters(u, { agent: 'a', agent_version: 'v1', service: 's', environment: 'prod', unit_kind: 'trace', attributes: { tier: 'gold' } })).toBe(true);
    expect(matchesFilters(u, { unit_kind: 'session' })).toBe(false);
    expect(matchesFilters(u, { attributes: { tier: 'silver' } })).toBe(false);
    expect(matchesFilters(unit({}), { attributes: { tier: 'gold' } })).toBe(false);
  });

  it('defaults a monitor to every unit, all sampled, enabled', () => {
    expect(MonitorInputSchema.parse({ name: 'm', checks: ['loop_guard'] })).toEqual({ name: 'm', checks: ['loop_guard'], filters: {}, sample_rate: 1, enabled: true });
    expect(MonitorInputSchema.safeParse({ name: 'm', checks: [], sample_rate: 2 }).success).toBe(false);
  });
});
