import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryBus, type BusMessage } from '../../../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { createSessionAggregator } from './create-session-aggregator.ts';
import { createSessionRouter } from './create-session-router.ts';

const log = createSilentLogger();

describe('session stages: routing trace units', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('dead-letters a record that is not a unit with the reason, and routes the valid trace units around it into their session', async () => {
    const bus = createInMemoryBus({ log, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    const aggregator = createSessionAggregator({ unitsTopic: 'units', sessionsTopic: 'sessions', groupId: 'sessions', idleMs: 300, tickMs: 10 }, { bus, log });
    const router = createSessionRouter({ unitsTopic: 'units', sessionsTopic: 'sessions', groupId: 'sessions-route' }, { bus, log });
    for (const stage of [aggregator, router]) {
      await stage.start();
      cleanups.push(() => stage.shutdown());
    }
    const dead: BusMessage[] = [];
    const published: BusMessage[] = [];
    for (const [topic, into] of [['units.dlq', dead], ['units', published]] as const) {
      const reader = bus.createConsumer({ topic, groupId: `reader-${topic}`, handle: (m) => Promise.resolve(void into.push(m)) });
      await reader.start();
      cleanups.push(() => reader.shutdown());
    }
    const producer = bus.createProducer();
    await producer.start();
    cleanups.push(() => producer.shutdown());

    const first = createTestUnit(1, { conversation_id: 'conv-1' });
    // Started 1 ms before the first, whenever the factory ran (it stamps the current time).
    const second = createTestUnit(2, { conversation_id: 'conv-1', start_time_ms: first.start_time_ms - 1 });
    await producer.send('units', [
      { key: first.unit_id, value: JSON.stringify(first) },
      { key: 'span-1', value: JSON.stringify({ schema_version: 1, kind: 'span', trace_id: 'a'.repeat(32) }) },
      { key: 'garbage', value: 'not json' },
      { key: second.unit_id, value: JSON.stringify(second) },
    ]);

    await waitFor(() => dead.length === 2 && published.some((m) => m.key === 'session:conv-1'), { timeoutMs: 5_000, intervalMs: 10, description: 'the dead letters and the session unit' });
    expect(dead.map((m) => [m.key, m.headers?.['error-name']])).toEqual([
      ['span-1', 'PermanentError'],
      ['garbage', 'PermanentError'],
    ]);
    expect(dead[0].headers?.error).toBe('record is not a unit v1: unit_id: Invalid input: expected string, received undefined; kind: Invalid option: expected one of "trace"|"session"; conversation_id: Invalid input: expected string, received undefined');
    expect(dead[1].headers?.error).toMatch(/^record is not JSON: /);
    const session = JSON.parse(published.find((m) => m.key === 'session:conv-1')!.value) as { trace_ids: string[] };
    // In order of start.
    expect(session.trace_ids).toEqual([second.unit_id, first.unit_id]);
  });
});
