import type { DecodedLogsRequest, DecodedTraceRequest, LazyLogsRequest, LazyTraceRequest } from './types.ts';

/** Every span decoded, in order. */
export function materializeTraceRequest(req: LazyTraceRequest): DecodedTraceRequest {
  return {
    resourceSpans: req.resourceSpans.map((rs) => ({
      resource: rs.resource,
      scopeSpans: rs.scopeSpans.map((ss) => ({ scope: ss.scope, spans: Array.from({ length: ss.count }, (_, i) => ss.span(i)) })),
    })),
  };
}

export function materializeLogsRequest(req: LazyLogsRequest): DecodedLogsRequest {
  return {
    resourceLogs: req.resourceLogs.map((rl) => ({
      resource: rl.resource,
      scopeLogs: rl.scopeLogs.map((sl) => ({ scope: sl.scope, logRecords: Array.from({ length: sl.count }, (_, i) => sl.logRecord(i)) })),
    })),
  };
}

/** An already decoded export seen as a lazy one (for the pure conversion functions). */
export function lazyTraceRequest(req: DecodedTraceRequest): LazyTraceRequest {
  return {
    resourceSpans: req.resourceSpans.map((rs) => ({
      resource: rs.resource,
      scopeSpans: rs.scopeSpans.map((ss) => ({ scope: ss.scope, count: ss.spans.length, span: (i: number) => ss.spans[i] })),
    })),
  };
}

export function lazyLogsRequest(req: DecodedLogsRequest): LazyLogsRequest {
  return {
    resourceLogs: req.resourceLogs.map((rl) => ({
      resource: rl.resource,
      scopeLogs: rl.scopeLogs.map((sl) => ({ scope: sl.scope, count: sl.logRecords.length, logRecord: (i: number) => sl.logRecords[i] })),
    })),
  };
}
