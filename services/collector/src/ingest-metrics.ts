import type { Metrics } from '../../../shared/kit/metrics/index.ts';
import type { Ingest, IngestResult } from './ingest.ts';
import { countLogRecords, countSpans } from './pipeline.ts';

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
  return {
    async exportTraces(decode, project, body) {
      let n = 0;
      const counted = (k: number): void => {
        n = k;
        body?.counted?.(k);
      };
      const result = await ingest.exportTraces(
        () => {
          const req = decode();
          n = countSpans(req);
          return req;
        },
        project,
        body ? { ...body, counted } : undefined,
      );
      return record(n, result);
    },
    async exportLogs(decode, project, body) {
      let n = 0;
      const counted = (k: number): void => {
        n = k;
        body?.counted?.(k);
      };
      const result = await ingest.exportLogs(
        () => {
          const req = decode();
          n = countLogRecords(req);
          return req;
        },
        project,
        body ? { ...body, counted } : undefined,
      );
      return record(n, result);
    },
  };
}
