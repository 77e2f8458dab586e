import { describe, expect, it } from 'vitest';
import { createMetrics, renderMetrics } from '../../../shared/kit/metrics/index.ts';
import type { Ingest, IngestResult } from './ingest.ts';
import { withIngestMetrics } from './ingest-metrics.ts';
import type { LazyLogsRequest, LazyTraceRequest } from './otlp/types.ts';

const traces = (...counts: number[]): LazyTraceRequest => ({ resourceSpans: [{ resource: {} as never, scopeSpans: counts.map((count) => ({ scope: {} as never, count, span: () => ({}) as never })) }] });
const logs = (count: number): LazyLogsRequest => ({ resourceLogs: [{ resource: {} as never, scopeLogs: [{ scope: {} as never, count, logRecord: () => ({}) as never }] }] });

async function counters(metrics: ReturnType<typeof createMetrics>): Promise<Record<string, number>> {
  const text = await renderMetrics(metrics);
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^tracecheck_spans_(received|accepted|rejected)_total(\{reason="(\w+)"\})? (\d+)$/gm)) out[m[3] ? `${m[1]}:${m[3]}` : m[1]] = Number(m[4]);
  return out;
}

describe('ingest metrics', () => {
  it('counts decoded traces and logs alike: accepted, invalid, too many, busy and unavailable', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const answers: IngestResult[] = [{ kind: 'ok' }, { kind: 'ok', partial: { rejected: 2, errorMessage: 'bad' } }, { kind: 'too_many_items', message: 'x' }, { kind: 'busy', message: 'x', retryAfterSeconds: 1 }, { kind: 'unavailable', message: 'x', retryAfterSeconds: 1 }];
    let next = 0;
    const inner: Ingest = {
      exportTraces: (decode) => (decode(), Promise.resolve(answers[next++])),
      exportLogs: (decode) => (decode(), Promise.resolve(answers[next++])),
    };
    const ingest = withIngestMetrics(inner, metrics);
    await ingest.exportTraces(() => traces(3, 2));
    await ingest.exportLogs(() => logs(4));
    await ingest.exportTraces(() => traces(7));
    await ingest.exportLogs(() => logs(1));
    await ingest.exportTraces(() => traces(6));
    expect(await counters(metrics)).toEqual({ received: 23, accepted: 7, 'rejected:invalid': 2, 'rejected:too_many': 7, 'rejected:busy': 1, 'rejected:unavailable': 6 });
  });

  it('counts an export converted on a worker when the worker reports its count, and passes the count on', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const reported: number[] = [];
    const inner: Ingest = {
      exportTraces: (_decode, _project, body) => (body?.counted?.(9), Promise.resolve<IngestResult>({ kind: 'ok' })),
      exportLogs: (_decode, _project, body) => (body?.counted?.(4), Promise.resolve<IngestResult>({ kind: 'ok' })),
    };
    const ingest = withIngestMetrics(inner, metrics);
    const body = { encoding: 'protobuf' as const, bytes: new Uint8Array(0), counted: (n: number) => reported.push(n) };
    await ingest.exportTraces(() => traces(1), undefined, body);
    await ingest.exportLogs(() => logs(1), undefined, body);
    expect([await counters(metrics), reported]).toEqual([{ received: 13, accepted: 13 }, [9, 4]]);
  });
});
