import { describe, expect, it } from 'vitest';
import type { RetentionCut, Store, StoredDoc } from '../../adapters/store/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createMetrics } from '../metrics/index.ts';
import { createRetentionJob, RETENTION_DOC_ID, RETENTION_DOC_KIND } from './retention-job.ts';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

function fakeStore(docs: StoredDoc[]): { store: Store; cuts: RetentionCut[] } {
  const cuts: RetentionCut[] = [];
  const store = {
    listDocs: ({ kind }: { kind: string }) => Promise.resolve(docs.filter((d) => d.kind === kind)),
    removeOlderThan: (cut: RetentionCut) => {
      cuts.push(cut);
      return Promise.resolve();
    },
    tableBytes: () => Promise.resolve({ units: 1234, scores: 56 }),
  } as unknown as Store;
  return { store, cuts };
}

const own = (project: string, body: unknown): StoredDoc => ({ kind: RETENTION_DOC_KIND, project, id: RETENTION_DOC_ID, body, updated_at_ms: 0 });

describe('retention job', () => {
  it("cuts each project with its own retention, never longer than the deployment's, then the rest, and reports the table sizes", async () => {
    const { store, cuts } = fakeStore([own('short', { days: 2 }), own('long', { days: 90 }), own('broken', { days: 'x' })]);
    const metrics = createMetrics({ defaultMetrics: false });
    const job = createRetentionJob({ store, days: 30, intervalMs: 60_000, docKinds: ['alert_event'], now: () => NOW, log: createSilentLogger(), metrics });
    await job.runOnce();
    expect(cuts).toEqual([
      { cutoffMs: NOW - 2 * DAY, project: 'short', docKinds: ['alert_event'] },
      { cutoffMs: NOW - 30 * DAY, project: 'long', docKinds: ['alert_event'] },
      { cutoffMs: NOW - 30 * DAY, exceptProjects: ['short', 'long'], docKinds: ['alert_event'] },
    ]);
    const text = await metrics.registry.metrics();
    expect(text.split('\n').filter((l) => l.startsWith('tracecheck_store_table_bytes'))).toEqual(['tracecheck_store_table_bytes{table="units"} 1234', 'tracecheck_store_table_bytes{table="scores"} 56']);
  });

  it('without a deployment retention, cuts only the projects that have their own', async () => {
    const { store, cuts } = fakeStore([own('p', { days: 1 })]);
    const job = createRetentionJob({ store, days: null, intervalMs: 60_000, docKinds: [], now: () => NOW, log: createSilentLogger() });
    await job.runOnce();
    expect(cuts).toEqual([{ cutoffMs: NOW - DAY, project: 'p', docKinds: [] }]);
  });

  it('keeps a project longer than the deployment only when the operator allows it', async () => {
    const { store, cuts } = fakeStore([own('long', { days: 90 })]);
    const job = createRetentionJob({ store, days: 30, allowLonger: true, intervalMs: 60_000, docKinds: [], now: () => NOW, log: createSilentLogger() });
    await job.runOnce();
    expect(cuts[0]).toEqual({ cutoffMs: NOW - 90 * DAY, project: 'long', docKinds: [] });
  });
});
