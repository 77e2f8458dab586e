import { describe, expect, it } from 'vitest';
import type { StoredDoc } from '../../adapters/store/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, createPipelineStatusReporter, ratePerMinute } from './pipeline-status.ts';

function memoryDocs() {
  const docs = new Map<string, StoredDoc>();
  return {
    docs,
    putDoc: (d: StoredDoc) => Promise.resolve(void docs.set(d.id, d)),
    listDocs: (q: { beforeMs?: number }) => Promise.resolve([...docs.values()].filter((d) => q.beforeMs === undefined || d.updated_at_ms < q.beforeMs)),
    deleteDoc: (_k: string, _p: string, id: string) => Promise.resolve(void docs.delete(id)),
  };
}

const EXPORTED = { protocol: 'grpc', endpoint: 'http://otel.example:4317/', sent: 510, rejected: 2, failed: 0, dropped: 0, retries: 3, queued: 12, last_error: 'gRPC otel.example:4317: UNAVAILABLE', last_error_at_ms: 1_000 };

describe('pipeline status reporter', () => {
  it('writes its backlog, judge queue and scoring rate, removes leftovers at start and its doc at shutdown', async () => {
    const store = memoryDocs();
    let now = 10 * 3_600_000;
    let scored = 0;
    store.docs.set('dead:1', { kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, id: 'dead:1', body: {}, updated_at_ms: now - 2 * 3_600_000 });
    store.docs.set('alive:2', { kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, id: 'alive:2', body: {}, updated_at_ms: now - 60_000 });
    const reporter = createPipelineStatusReporter({
      store,
      instance: 'host:7',
      services: ['scorer'],
      nowMs: () => now,
      log: createSilentLogger(),
      intervalMs: 10_000,
      sources: {
        stages: () => [{ stage: 'score', topic: 'units', group: 'g', waiting: 1_500, error: null }],
        judge: () => ({ rate_per_minute: 600, concurrency: 8, in_flight: 8, waiting: 40 }),
        unitsScored: () => Promise.resolve(scored),
        openSessions: () => ({ count: 4, idle_ms: 900_000 }),
        evaluationExport: () => EXPORTED,
      },
    });
    await reporter.start();
    expect([...store.docs.keys()].sort()).toEqual(['alive:2', 'host:7']);
    expect(store.docs.get('host:7')!.body).toEqual({
      instance: 'host:7', services: ['scorer'], written_at_ms: now, interval_ms: 10_000,
      stages: [{ stage: 'score', topic: 'units', group: 'g', waiting: 1_500, error: null }],
      judge: { rate_per_minute: 600, concurrency: 8, in_flight: 8, waiting: 40 },
      scored_per_minute: 0,
      open_sessions: { count: 4, idle_ms: 900_000 },
      evaluation_export: EXPORTED,
    });
    now += 30_000;
    scored = 300;
    await reporter.tick();
    expect((store.docs.get('host:7')!.body as { scored_per_minute: number }).scored_per_minute).toBe(600);
    await reporter.shutdown();
    expect([...store.docs.keys()]).toEqual(['alive:2']);
  });

  it('takes the rate over the samples it keeps', () => {
    expect(ratePerMinute([{ at: 0, total: 0 }])).toBeNull();
    expect(ratePerMinute([{ at: 0, total: 100 }, { at: 60_000, total: 150 }, { at: 120_000, total: 300 }])).toBe(100);
  });
});
