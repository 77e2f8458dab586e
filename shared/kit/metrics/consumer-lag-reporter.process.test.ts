import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ConsumerLag } from '../../adapters/bus/index.ts';
import { createLogger } from '../../runtime/logging/index.ts';
import { createConsumerLagReporter, createMetrics, createMetricsServer } from './index.ts';

function lines(): { log: ReturnType<typeof createLogger>; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ level: 'info', destination }), records };
}

function lag(partitions: Array<[number, number]>, overrides: Partial<ConsumerLag> = {}): ConsumerLag {
  return {
    topic: 'tracecheck.units',
    groupId: 'tracecheck-scorer',
    partitions: partitions.map(([partition, n]) => ({ partition, committedOffset: '100', highWatermark: String(100 + n), lag: n })),
    totalLag: partitions.reduce((s, [, n]) => s + n, 0),
    measuredAtMs: Date.UTC(2026, 10, 23, 8, 0, 0),
    error: null,
    ...overrides,
  };
}

describe('consumer lag reporter', () => {
  it('sets tracecheck_consumer_lag_records per group, topic and partition, and drops partitions that moved away', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const reporter = createConsumerLagReporter({ metrics, log: lines().log, nowMs: () => 0, behindRecords: 1000 });
    reporter.record(lag([[0, 7], [1, 0], [2, 3]]));
    let text = await metrics.registry.metrics();
    expect(text.split('\n').filter((l) => l.startsWith('tracecheck_consumer_lag_records'))).toEqual([
      'tracecheck_consumer_lag_records{group="tracecheck-scorer",topic="tracecheck.units",partition="0"} 7',
      'tracecheck_consumer_lag_records{group="tracecheck-scorer",topic="tracecheck.units",partition="1"} 0',
      'tracecheck_consumer_lag_records{group="tracecheck-scorer",topic="tracecheck.units",partition="2"} 3',
    ]);
    reporter.record(lag([[2, 1]]));
    text = await metrics.registry.metrics();
    expect(text.split('\n').filter((l) => l.startsWith('tracecheck_consumer_lag_records'))).toEqual([
      'tracecheck_consumer_lag_records{group="tracecheck-scorer",topic="tracecheck.units",partition="2"} 1',
    ]);
  });

  it('describes every consumer in /healthz: per partition lag, total, and whether behind', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const reporter = createConsumerLagReporter({ metrics, log: lines().log, nowMs: () => 0, behindRecords: 10 });
    const server = createMetricsServer({ host: '127.0.0.1', port: 0, metrics, log: lines().log, health: () => reporter.health() });
    await server.start();
    try {
      expect(await (await fetch(`${server.url()}/healthz`)).json()).toEqual({ status: 'ok', total_lag: 0, behind: false, consumers: [] });
      reporter.record(lag([[0, 4], [1, 8]]));
      reporter.record(lag([[0, 2]], { topic: 'tracecheck.spans', groupId: 'tracecheck-assembler', error: 'broker unreachable' }));
      const res = await fetch(`${server.url()}/healthz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({
        status: 'behind',
        total_lag: 14,
        behind: true,
        consumers: [
          {
            group: 'tracecheck-scorer',
            topic: 'tracecheck.units',
            total_lag: 12,
            behind: true,
            partitions: [
              { partition: 0, lag: 4, committed_offset: '100', high_watermark: '104' },
              { partition: 1, lag: 8, committed_offset: '100', high_watermark: '108' },
            ],
            measured_at: '2026-11-23T08:00:00.000Z',
            error: null,
          },
          {
            group: 'tracecheck-assembler',
            topic: 'tracecheck.spans',
            total_lag: 2,
            behind: false,
            partitions: [{ partition: 0, lag: 2, committed_offset: '100', high_watermark: '102' }],
            measured_at: '2026-11-23T08:00:00.000Z',
            error: 'broker unreachable',
          },
        ],
      });
      expect((await fetch(`${server.url()}/metrics`)).status).toBe(200);
    } finally {
      await server.shutdown();
    }
  });

  it('logs "consumer is behind" at most once a minute per consumer while it is behind', () => {
    let now = 1_000_000;
    const { log, records } = lines();
    const reporter = createConsumerLagReporter({ metrics: createMetrics({ defaultMetrics: false }), log, nowMs: () => now, behindRecords: 100 });
    const behind = (): Array<Record<string, unknown>> => records.filter((r) => r.msg === 'consumer is behind');
    reporter.record(lag([[0, 99]]));
    expect(behind()).toEqual([]);
    reporter.record(lag([[0, 60], [1, 40]]));
    expect(behind()).toHaveLength(1);
    expect(behind()[0]).toMatchObject({ level: 40, component: 'consumer-lag', group: 'tracecheck-scorer', topic: 'tracecheck.units', totalLag: 100, behindRecords: 100, partitions: { 0: 60, 1: 40 } });
    for (const step of [5_000, 20_000, 34_999]) {
      now += step - (now - 1_000_000);
      reporter.record(lag([[0, 500]]));
    }
    expect(behind()).toHaveLength(1);
    // Another consumer of the same process has its own minute.
    reporter.record(lag([[0, 500]], { groupId: 'tracecheck-assembler', topic: 'tracecheck.spans' }));
    expect(behind()).toHaveLength(2);
    now = 1_060_000;
    reporter.record(lag([[0, 500]]));
    expect(behind()).toHaveLength(3);
    now = 1_119_999;
    reporter.record(lag([[0, 500]]));
    expect(behind()).toHaveLength(3);
    now = 1_120_000;
    reporter.record(lag([[0, 500]]));
    expect(behind()).toHaveLength(4);
  });
});
