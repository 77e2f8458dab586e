import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKafkaBus } from '../../../shared/adapters/bus/index.ts';
import type { Bus, BusMessage, Consumer } from '../../../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { UnitSchema, type Unit } from '../../../shared/contracts/schemas/index.ts';
import { createAssembler } from '../../../services/assembler/src/index.ts';
import { createTestSpan, user, assistant } from '../../helpers/span-factory.ts';
import { testKafkaBrokers, uniqueName, waitFor } from '../../helpers/infra.ts';

const log = createSilentLogger();
/** Records spilled to disk, as in the services. */
const spill = { dir: join(tmpdir(), 'tracecheck-spill') };
const ROOT = 'f'.repeat(16);

/** A model call under the agent's root span. */
function chatSpan(traceId: string, text: string) {
  const span = createTestSpan({ trace_id: traceId, parent_span_id: ROOT, genai: { input_messages: [user(text)], output_messages: [assistant(`re: ${text}`)] } });
  return { key: traceId, value: JSON.stringify(span) };
}

/** The agent's root span: it ends last, carrying no dialog of its own. */
function rootSpan(traceId: string) {
  return { key: traceId, value: JSON.stringify(createTestSpan({ trace_id: traceId, span_id: ROOT, genai: { agent_name: 'agent' } })) };
}

describe('assembler on Kafka', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of stops.reverse()) await stop();
    stops.length = 0;
  });

  function collectUnits(bus: Bus, topic: string): { units: Unit[]; consumer: Consumer } {
    const units: Unit[] = [];
    const consumer = bus.createConsumer({
      topic,
      groupId: uniqueName('reader'),
      handle: (m: BusMessage) => {
        units.push(UnitSchema.parse(JSON.parse(m.value)));
        return Promise.resolve();
      },
    });
    return { units, consumer };
  }

  it('re-reads an open trace after a restart, so no span accepted before the crash is lost', async () => {
    const bus = createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('t'), log });
    const spans = uniqueName('spans');
    const unitsTopic = uniqueName('units');
    const groupId = uniqueName('assembler');
    await bus.ensureTopics([spans, unitsTopic]);
    const producer = bus.createProducer();
    await producer.start();
    stops.push(() => producer.shutdown());
    const reader = collectUnits(bus, unitsTopic);
    await reader.consumer.start();
    stops.push(() => reader.consumer.shutdown());

    const A = '1'.repeat(32);
    const B = '2'.repeat(32);
    // Long grace: trace A stays open while trace B (after it on the partition) closes.
    const first = createAssembler({ spansTopic: spans, unitsTopic, groupId, graceMs: 60_000, maxOpenMs: 600_000, tickMs: 50, spill }, { bus, log });
    await first.start();
    await producer.send(spans, [chatSpan(A, 'first call')]);
    await waitFor(() => first.openCount() === 1, { timeoutMs: 20_000, description: 'trace A open' });
    // The first assembler dies without publishing A (as after a crash: shutdown would flush only rooted traces).
    await first.shutdown();
    expect(reader.units).toEqual([]);

    const second = createAssembler({ spansTopic: spans, unitsTopic, groupId, graceMs: 200, maxOpenMs: 600_000, tickMs: 50, spill }, { bus, log });
    await second.start();
    stops.push(() => second.shutdown());
    await producer.send(spans, [chatSpan(A, 'second call'), rootSpan(A), rootSpan(B)]);
    await waitFor(() => reader.units.length === 2, { timeoutMs: 30_000, description: 'two units' });
    const a = reader.units.find((u) => u.unit_id === A)!;
    expect(a.span_count).toBe(3);
    expect(a.message_history.map((m) => m.content)).toEqual(['first call', 're: first call', 'second call', 're: second call']);
    expect(reader.units.find((u) => u.unit_id === B)!.span_count).toBe(1);
  });

  it('sends a record that is not a span envelope to the dead-letter topic and goes on', async () => {
    const bus = createKafkaBus({ brokers: testKafkaBrokers(), clientId: uniqueName('t'), log });
    const spans = uniqueName('spans');
    const unitsTopic = uniqueName('units');
    await bus.ensureTopics([spans, unitsTopic, `${spans}.dlq`]);
    const producer = bus.createProducer();
    await producer.start();
    stops.push(() => producer.shutdown());
    const dead: BusMessage[] = [];
    const dlq = bus.createConsumer({ topic: `${spans}.dlq`, groupId: uniqueName('dlq'), handle: (m) => (dead.push(m), Promise.resolve()) });
    await dlq.start();
    stops.push(() => dlq.shutdown());
    const reader = collectUnits(bus, unitsTopic);
    await reader.consumer.start();
    stops.push(() => reader.consumer.shutdown());
    const assembler = createAssembler({ spansTopic: spans, unitsTopic, groupId: uniqueName('assembler'), graceMs: 100, maxOpenMs: 600_000, tickMs: 50 }, { bus, log });
    await assembler.start();
    stops.push(() => assembler.shutdown());

    const C = '3'.repeat(32);
    await producer.send(spans, [{ key: C, value: '{"schema_version": 99}' }, chatSpan(C, 'after the poison'), rootSpan(C)]);
    await waitFor(() => reader.units.length === 1 && dead.length === 1, { timeoutMs: 30_000, description: 'one unit and one dead letter' });
    expect(dead[0].value).toBe('{"schema_version": 99}');
    expect(dead[0].headers.error).toMatch(/not a span envelope v1/);
    expect(reader.units[0].message_history.map((m) => m.content)).toEqual(['after the poison', 're: after the poison']);
  });
});
