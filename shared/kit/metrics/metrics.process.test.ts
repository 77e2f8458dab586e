import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createInMemoryBus } from '../../adapters/bus/index.ts';
import { encodeFrame } from '../../adapters/bus/record-frame.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createMetrics, createMetricsServer, withJudgeMetrics } from './index.ts';

describe('metrics', () => {
  it('counts judge calls by outcome and keeps in-flight at zero after them', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const ok = withJudgeMetrics({ complete: () => Promise.resolve({ text: 'yes', model: 'm', inputTokens: 1, outputTokens: 1 }) }, metrics);
    const bad = withJudgeMetrics({ complete: () => Promise.reject(new Error('down')) }, metrics);
    await ok.complete({ system: 's', user: 'u' });
    await expect(bad.complete({ system: 's', user: 'u' })).rejects.toThrow('down');
    const text = await metrics.registry.metrics();
    expect(text).toContain('tracecheck_judge_calls_total{outcome="ok"} 1');
    expect(text).toContain('tracecheck_judge_calls_total{outcome="failed"} 1');
    expect(text).toContain('tracecheck_judge_calls_in_flight 0');
  });

  it('serves GET /metrics on its own port, and nothing else', async () => {
    const metrics = createMetrics();
    metrics.unitsAssembled.inc(3);
    const server = createMetricsServer({ host: '127.0.0.1', port: 0, metrics, log: createSilentLogger() });
    await server.start();
    try {
      const res = await fetch(`${server.url()}/metrics`);
      expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const text = await res.text();
      expect(text).toContain('tracecheck_units_assembled_total 3');
      expect(text).toContain('tracecheck_process_resident_memory_bytes');
      expect((await fetch(`${server.url()}/other`)).status).toBe(404);
    } finally {
      await server.shutdown();
    }
  });

  it('reports what the in-process bus holds in memory, unread and on disk, per topic', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracecheck-metrics-bus-'));
    const bus = createInMemoryBus({ log: createSilentLogger(), durable: { dir } });
    try {
      const metrics = createMetrics({ defaultMetrics: false });
      metrics.observeBus(() => bus.holdings());
      const producer = bus.createProducer();
      await producer.start();
      await producer.send('t', [{ key: 'k', value: 'one' }, { key: 'k', value: 'two' }]);
      const bytes = ['one', 'two'].map((value) => encodeFrame({ key: 'k', value, headers: {}, timestampMs: 0 }).length).reduce((a, b) => a + b, 0);
      const lines = (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('tracecheck_bus_'));
      // Nobody reads 't': nothing is unread; the batch just sent stays in memory until the next send trims it.
      expect(lines).toEqual([
        'tracecheck_bus_records_in_memory{topic="t"} 2',
        'tracecheck_bus_records_unread{topic="t"} 0',
        `tracecheck_bus_log_bytes{topic="t"} ${bytes}`,
        'tracecheck_bus_lag_seconds{topic="t"} 0',
      ]);
    } finally {
      await bus.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
