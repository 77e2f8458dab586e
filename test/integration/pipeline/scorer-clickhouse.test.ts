import { afterAll, describe, expect, it } from 'vitest';
import { createKafkaBus } from '../../../shared/adapters/bus/index.ts';
import { createCheckRegistry } from '../../../shared/engines/checks/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { createClickHouseStore } from '../../../shared/adapters/store/index.ts';
import { createScorer } from '../../../services/scorer/src/index.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';

const log = createSilentLogger();
const database = uniqueName('scorer');

function unit(id: string): Unit {
  return {
    schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: "O'Brien \\ agent", agent_version: '2.0', service: 'svc', environment: 'staging',
    conversation_id: 'c1', model: 'm', model_input: [], model_output: 'Your order is on its way.',
    message_history: [
      { role: 'user', content: 'Where is order 7?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_order', arguments: '{"id":7}' } }] },
      { role: 'tool', content: 'Error: order service timeout', tool_call_id: 'c1' },
      { role: 'assistant', content: 'Your order is on its way.' },
    ],
    tool_calls: [{ id: 'c1', name: 'lookup_order', arguments: '{"id":7}', result: 'Error: order service timeout', error: null }],
    tools: [], scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null,
    usage: { input_tokens: 10, output_tokens: 5 }, errors: [], truncated: false, span_count: 3, start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000,
  };
}

describe('scorer on Kafka + ClickHouse', () => {
  const store = createClickHouseStore({ url: testClickHouseUrl(), database, log });
  afterAll(async () => {
    await store.shutdown();
    await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' });
  });

  it('stores the unit and one score per check, once, even when the unit is delivered twice', async () => {
    await store.start();
    const bus = createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('t'), log });
    const unitsTopic = uniqueName('units');
    const scoresTopic = uniqueName('scores');
    const registry = createCheckRegistry();
    const scorer = createScorer({ unitsTopic, scoresTopic, groupId: uniqueName('scorer'), judgeUnavailableReason: 'no judge configured: set OPENAI_BASE_URL' }, { bus, store, log, nowMs: Date.now, checks: [registry.get('function_result_present')!, registry.get('task_completed')!], judge: null });
    await scorer.start();
    const producer = bus.createProducer();
    await producer.start();
    const id = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const value = JSON.stringify(unit(id));
    await producer.send(unitsTopic, [{ key: id, value }, { key: id, value }]);
    const published: string[] = [];
    const reader = bus.createConsumer({ topic: scoresTopic, groupId: uniqueName('reader'), handle: (m) => (published.push(m.value), Promise.resolve()) });
    await reader.start();
    await waitFor(() => published.length === 4, { timeoutMs: 30_000, description: 'two deliveries scored' });
    await Promise.all([reader.shutdown(), scorer.shutdown(), producer.shutdown()]);

    expect((await store.getUnit(id))?.message_history).toEqual(unit(id).message_history);
    const scores = await store.queryScores({ unitId: id });
    expect(scores.map((s) => [s.check, s.status, s.value, s.passed, s.method, s.error, s.agent_name]).sort()).toEqual([
      ['function_result_present', 'ok', 0, false, 'deterministic', null, "O'Brien \\ agent"],
      ['task_completed', 'not_run', null, null, 'model', 'no judge configured: set OPENAI_BASE_URL', "O'Brien \\ agent"],
    ]);
    expect(scores.find((s) => s.check === 'function_result_present')!.explanation).toContain('lookup_order');
  });
});
