import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryBus, type Bus, type BusMessage } from '../../../shared/adapters/bus/index.ts';
import { RetriableError } from '../../../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { createMetrics, renderMetrics } from '../../../shared/kit/metrics/index.ts';
import { createTestSpan } from '../../../test/helpers/span-factory.ts';
import { assembleTrace, type TraceParts } from './assemble-trace.ts';
import { defaultTickMs } from './closing-policy.ts';
import { createAssembler } from './create-assembler.ts';

const log = createSilentLogger();

async function waitUntil(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('assembler dead-letter path', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('never commits a trace that could not be assembled until its records are in the dead-letter topic, even while that send fails', async () => {
    const inner = createInMemoryBus({ log, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    let dlqDown = true;
    let dlqAttempts = 0;
    const bus: Bus = {
      ...inner,
      createProducer() {
        const p = inner.createProducer();
        return {
          ...p,
          send: (topic, messages) => {
            if (!topic.endsWith('.dlq')) return p.send(topic, messages);
            dlqAttempts += 1;
            return dlqDown ? Promise.reject(new RetriableError('dlq down')) : p.send(topic, messages);
          },
        };
      },
    };
    const poison = '0'.repeat(31) + '1';
    const healthy = '0'.repeat(31) + '2';
    const assemble = (trace: TraceParts, nowMs: number) => {
      if (trace.traceId === poison) throw new Error('cannot assemble this trace');
      return assembleTrace(trace, nowMs);
    };
    const config = { spansTopic: 'spans', unitsTopic: 'units', groupId: 'assembler', graceMs: 20, completeGraceMs: 20, maxOpenMs: 60_000, tickMs: 10 };
    const deps = { bus, assemble, log };
    const units: string[] = [];
    const reader = inner.createConsumer({ topic: 'units', groupId: 'reader', handle: (m) => Promise.resolve(void units.push(m.key)) });
    await reader.start();
    cleanups.push(() => reader.shutdown());
    const producer = inner.createProducer();
    await producer.start();
    cleanups.push(() => producer.shutdown());
    const poisonSpan = createTestSpan({ trace_id: poison });
    await producer.send('spans', [
      { key: poison, value: JSON.stringify(poisonSpan) },
      { key: healthy, value: JSON.stringify(createTestSpan({ trace_id: healthy })) },
    ]);

    const first = createAssembler(config, deps);
    await first.start();
    await waitUntil(() => units.includes(healthy), 5_000, 'the healthy trace published');
    await waitUntil(() => dlqAttempts >= 3, 5_000, 'the dead-letter send retried');
    await first.shutdown();
    expect(units).toEqual([healthy]);

    // Had the poison trace been committed, the next assembler of the group would not read it again.
    dlqDown = false;
    const dead: BusMessage[] = [];
    const dlq = inner.createConsumer({ topic: 'spans.dlq', groupId: 'dlq-reader', handle: (m) => Promise.resolve(void dead.push(m)) });
    await dlq.start();
    cleanups.push(() => dlq.shutdown());
    const second = createAssembler(config, deps);
    await second.start();
    cleanups.push(() => second.shutdown());
    await waitUntil(() => dead.length === 1, 5_000, 'the poison trace in the dead-letter topic');
    expect(dead[0].key).toBe(poison);
    expect(JSON.parse(dead[0].value)).toEqual(poisonSpan);
    // The bus's one dead-letter format: the record plus why and where it was read from (one
    // partition, the poison span sent first).
    expect(dead[0].headers).toEqual({
      error: 'cannot assemble this trace',
      'error-name': 'Error',
      'original-topic': 'spans',
      'original-partition': '0',
      'original-offset': '0',
    });
    // At least once: the healthy trace after it was read again and published again, never lost.
    await waitUntil(() => units.length === 2, 5_000, 'the healthy trace re-published');
    expect(units).toEqual([healthy, healthy]);
  });

  it("a record of a trace id another project used first becomes that project's own unit, never a dead letter", async () => {
    const bus = createInMemoryBus({ log });
    const traceId = '0'.repeat(31) + '3';
    const dead: BusMessage[] = [];
    const units: Array<{ unit_id: string; project: string; span_count: number }> = [];
    const dlq = bus.createConsumer({ topic: 'spans.dlq', groupId: 'dlq-reader', handle: (m) => Promise.resolve(void dead.push(m)) });
    const reader = bus.createConsumer({ topic: 'units', groupId: 'reader', handle: (m) => Promise.resolve(void units.push(JSON.parse(m.value) as (typeof units)[number])) });
    const assembler = createAssembler({ spansTopic: 'spans', unitsTopic: 'units', groupId: 'assembler', graceMs: 20, completeGraceMs: 20, maxOpenMs: 60_000, tickMs: 10 }, { bus, log });
    await dlq.start();
    await reader.start();
    await assembler.start();
    cleanups.push(() => assembler.shutdown(), () => reader.shutdown(), () => dlq.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    cleanups.push(() => producer.shutdown());
    const owner = { ...createTestSpan({ trace_id: traceId, span_id: 'aaaaaaaaaaaaaaaa' }), project: 'shop' };
    const other = { ...createTestSpan({ trace_id: traceId, span_id: 'cccccccccccccccc' }), project: 'bank' };
    await producer.send('spans', [
      { key: traceId, value: JSON.stringify(owner) },
      { key: traceId, value: JSON.stringify(other) },
    ]);

    await waitUntil(() => units.length === 2, 5_000, 'two units');
    expect(units.map((u) => [u.unit_id, u.project, u.span_count]).sort()).toEqual([
      [traceId, 'shop', 1],
      [`${traceId}@bank`, 'bank', 1],
    ]);
    expect(dead).toEqual([]);
  });

  it("dead-letters the records of a project's trace that cannot be assembled under the trace id they were sent with", async () => {
    const bus = createInMemoryBus({ log });
    const traceId = '0'.repeat(31) + '5';
    const dead: BusMessage[] = [];
    const dlq = bus.createConsumer({ topic: 'spans.dlq', groupId: 'dlq-reader', handle: (m) => Promise.resolve(void dead.push(m)) });
    const assemble = (): never => {
      throw new Error('cannot assemble this trace');
    };
    const assembler = createAssembler({ spansTopic: 'spans', unitsTopic: 'units', groupId: 'assembler', graceMs: 20, completeGraceMs: 20, maxOpenMs: 60_000, tickMs: 10 }, { bus, log, assemble });
    await dlq.start();
    await assembler.start();
    cleanups.push(() => assembler.shutdown(), () => dlq.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    cleanups.push(() => producer.shutdown());
    const span = { ...createTestSpan({ trace_id: traceId }), project: 'shop' };
    await producer.send('spans', [{ key: traceId, value: JSON.stringify(span) }]);

    await waitUntil(() => dead.length === 1, 5_000, 'the record in the dead-letter topic');
    expect([dead[0].key, JSON.parse(dead[0].value), dead[0].headers['original-offset']]).toEqual([traceId, span, '0']);
  });

  it('a span that could not be spilled to disk is delivered again by the bus: the unit is whole, nothing is dead-lettered, and stop removes the files', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'assembler-spill-'));
    cleanups.push(() => Promise.resolve(rmSync(parent, { recursive: true, force: true })));
    const bus = createInMemoryBus({ log, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    const traceId = '0'.repeat(31) + '4';
    const assembler = createAssembler({ spansTopic: 'spans', unitsTopic: 'units', groupId: 'assembler', graceMs: 20, completeGraceMs: 20, maxOpenMs: 60_000, tickMs: 10, spill: { dir: parent, segmentBytes: 1 } }, { bus, log });
    const [own] = readdirSync(parent);
    // The first record's segment file is /dev/full: its write fails with ENOSPC.
    symlinkSync('/dev/full', join(parent, own, '0.seg'));
    const units: Array<{ unit_id: string; span_count: number }> = [];
    const dead: BusMessage[] = [];
    const reader = bus.createConsumer({ topic: 'units', groupId: 'reader', handle: (m) => Promise.resolve(void units.push(JSON.parse(m.value) as (typeof units)[number])) });
    const dlq = bus.createConsumer({ topic: 'spans.dlq', groupId: 'dlq-reader', handle: (m) => Promise.resolve(void dead.push(m)) });
    await reader.start();
    await dlq.start();
    await assembler.start();
    cleanups.push(() => reader.shutdown(), () => dlq.shutdown(), () => assembler.shutdown());
    const producer = bus.createProducer();
    await producer.start();
    cleanups.push(() => producer.shutdown());
    const root = createTestSpan({ trace_id: traceId, span_id: 'aaaaaaaaaaaaaaaa' });
    const child = createTestSpan({ trace_id: traceId, span_id: 'bbbbbbbbbbbbbbbb', parent_span_id: 'aaaaaaaaaaaaaaaa' });
    await producer.send('spans', [
      { key: traceId, value: JSON.stringify(child) },
      { key: traceId, value: JSON.stringify(root) },
    ]);

    await waitUntil(() => units.length === 1, 5_000, 'the unit');
    expect(units.map((u) => [u.unit_id, u.span_count])).toEqual([[traceId, 2]]);
    expect(dead).toEqual([]);
    // The failed segment is gone; the retried record went to a new one.
    expect(readdirSync(join(parent, own))).not.toContain('0.seg');
    await assembler.shutdown();
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe('assembler caps on open traces', () => {
  it('closes the oldest root-less traces past the cap at once and counts them in tracecheck_traces_closed_by_cap_total', async () => {
    const bus = createInMemoryBus({ log });
    const metrics = createMetrics({ defaultMetrics: false });
    const units: string[] = [];
    const reader = bus.createConsumer({ topic: 'units', groupId: 'reader', handle: (m) => Promise.resolve(void units.push(m.key)) });
    const config = { spansTopic: 'spans', unitsTopic: 'units', groupId: 'assembler', graceMs: 20, completeGraceMs: 20, maxOpenMs: 3_600_000, tickMs: 10, caps: { maxRootlessTraces: 1 } };
    const assembler = createAssembler(config, { bus, log, metrics });
    await reader.start();
    await assembler.start();
    const producer = bus.createProducer();
    await producer.start();
    try {
      const ids = ['6', '7', '8'].map((c) => '0'.repeat(31) + c);
      // Spans whose parent never comes: without the cap each would wait an hour for its root.
      await producer.send('spans', ids.map((id) => ({ key: id, value: JSON.stringify(createTestSpan({ trace_id: id, parent_span_id: 'bbbbbbbbbbbbbbbb' })) })));
      await waitUntil(() => units.length === 2, 5_000, 'two traces closed by the cap');
      expect(units).toEqual(ids.slice(0, 2));
      expect(assembler.openCount()).toBe(1);
      expect((await renderMetrics(metrics)).split('\n').filter((l) => l.startsWith('tracecheck_traces_closed_by_cap_total'))).toEqual(['tracecheck_traces_closed_by_cap_total{cap="rootless"} 2']);
    } finally {
      await producer.shutdown();
      await assembler.shutdown();
      await reader.shutdown();
    }
  });
});

describe('assembler tick', () => {
  it('looks for closed traces every tenth of the shortest grace, between 10 ms and 1 s', () => {
    // The defaults (grace 2 s, complete-trace grace 200 ms): a complete trace waits at most 20 ms more.
    expect(defaultTickMs(2_000, 200)).toBe(20);
    expect(defaultTickMs(2_000, undefined)).toBe(20);
    expect(defaultTickMs(300, 250)).toBe(25);
    expect(defaultTickMs(50, 20)).toBe(10);
    expect(defaultTickMs(60_000, 30_000)).toBe(1_000);
  });
});
