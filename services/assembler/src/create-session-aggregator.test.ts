import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryBus, type BusMessage } from '../../../shared/adapters/bus/index.ts';
import type { Unit } from '../../../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createTestUnit } from '../../../test/helpers/unit-factory.ts';
import { assembleSession, sessionUnitId } from './assemble-session.ts';
import { createSessionAggregator } from './create-session-aggregator.ts';

const log = createSilentLogger();

describe('session aggregator: sessions stored before', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('looks up the stored sessions of a batch of traces together, each id once, and re-opens each whole', async () => {
    const bus = createInMemoryBus({ log, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    const conversations = Array.from({ length: 20 }, (_, i) => ({ id: `conv-${i}`, project: i % 2 === 0 ? undefined : 'team-b' }));
    // Every other conversation was published before this process started: its session unit is in the store.
    const stored = new Map<string, Unit>();
    const oldTraces = new Map<string, Unit>();
    for (const [i, c] of conversations.entries()) {
      if (i % 4 > 1) continue;
      const old = createTestUnit(1_000 + i, { conversation_id: c.id, ...(c.project ? { project: c.project } : {}), start_time_ms: 1_000 + i });
      oldTraces.set(c.id, old);
      stored.set(`${c.project ?? 'default'}/${sessionUnitId(c.project, c.id)}`, assembleSession(null, [old], c.id, 2_000));
    }
    const asked: Array<{ project: string; ids: string[] }> = [];
    const aggregator = createSessionAggregator(
      { unitsTopic: 'units', sessionsTopic: 'sessions', groupId: 'sessions', idleMs: 300, tickMs: 10 },
      {
        bus,
        log,
        loadSessions: (ids, project) => {
          asked.push({ project, ids: [...ids] });
          const found = new Map<string, Unit>();
          for (const id of ids) {
            const unit = stored.get(`${project}/${id}`);
            if (unit) found.set(id, unit);
          }
          return Promise.resolve(found);
        },
      },
    );
    await aggregator.start();
    cleanups.push(() => aggregator.shutdown());
    const published: BusMessage[] = [];
    const reader = bus.createConsumer({ topic: 'units', groupId: 'reader', handle: (m) => Promise.resolve(void published.push(m)) });
    await reader.start();
    cleanups.push(() => reader.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    cleanups.push(() => producer.shutdown());

    // Three traces per conversation, interleaved, as the router would key them.
    const sent = new Map<string, Unit[]>();
    const messages = [0, 1, 2].flatMap((turn) =>
      conversations.map((c, i) => {
        const unit = createTestUnit(turn * 100 + i, { conversation_id: c.id, ...(c.project ? { project: c.project } : {}), start_time_ms: 10_000 + turn });
        sent.set(c.id, [...(sent.get(c.id) ?? []), unit]);
        return { key: c.id, value: JSON.stringify(unit) };
      }),
    );
    await producer.send('sessions', messages);

    await waitFor(() => published.length === conversations.length, { timeoutMs: 10_000, intervalMs: 10, description: 'one session unit per conversation' });
    const sessions = new Map(published.map((m) => [m.key, JSON.parse(m.value) as Unit]));
    for (const c of conversations) {
      const session = sessions.get(sessionUnitId(c.project, c.id))!;
      const old = oldTraces.get(c.id);
      expect(session.trace_ids).toEqual([...(old ? [old.unit_id] : []), ...sent.get(c.id)!.map((u) => u.unit_id)]);
    }
    // Each session id asked once, under its own project: a conversation the window knows is not asked again.
    const askedIds = asked.flatMap((a) => a.ids.map((id) => `${a.project}/${id}`)).sort();
    expect(askedIds).toEqual(conversations.map((c) => `${c.project ?? 'default'}/${sessionUnitId(c.project, c.id)}`).sort());
    expect(asked.length).toBeLessThan(messages.length);
  });
});
