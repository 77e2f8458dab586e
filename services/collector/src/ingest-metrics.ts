import type { Metrics } from '../../../shared/kit/metrics/index.ts';
import type { ExportBody, Ingest, IngestResult } from './ingest.ts';
import { countLogRecords, countSpans } from './pipeline.ts';

type ExportCall<R> = (decode: () => R, project?: string, body?: ExportBody) => Promise<IngestResult>;

/** Counts what each export brought and what became of it: accepted, or rejected and why. */
export function withIngestMetrics(ingest: Ingest, metrics: Metrics): Ingest {
  const record = (n: number, result: IngestResult): IngestResult => {
    metrics.spansReceived.inc(n);
    if (result.kind === 'too_many_items') metrics.spansRejected.inc({ reason: 'too_many' }, n);
    else if (result.kind === 'unavailable') metrics.spansRejected.inc({ reason: 'unavailable' }, n);
    else if (result.kind === 'busy') metrics.spansRejected.inc({ reason: 'busy' }, n);
    else {
      const rejected = result.partial?.rejected ?? 0;
      if (rejected > 0) metrics.spansRejected.inc({ reason: 'invalid' }, rejected);
      metrics.spansAccepted.inc(n - rejected);
    }
    return result;
  };

  /**
   * `call` with its items counted where they become known: when decoded here, or, when the export is
   * converted on a worker, when the worker reports the count (`body.counted`, passed on too).
   */
  function counting<R>(call: ExportCall<R>, countOf: (request: R) => number): ExportCall<R> {
    return async (decode, project, body) => {
      let n = 0;
      const counted = (k: number): void => {
        n = k;
        body?.counted?.(k);
      };
      const decodeCounted = (): R => {
        const request = decode();
        n = countOf(request);
        return request;
      };
      const result = await call(decodeCounted, project, body ? { ...body, counted } : undefined);
      return record(n, result);
    };
  }

  return {
    exportTraces: counting((decode, project, body) => ingest.exportTraces(decode, project, body), countSpans),
    exportLogs: counting((decode, project, body) => ingest.exportLogs(decode, project, body), countLogRecords),
  };
}
