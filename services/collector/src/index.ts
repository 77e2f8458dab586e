export { createCollector, COLLECTOR_DEFAULTS } from './create-collector.ts';
export type { Collector, CollectorConfig, CollectorLimits, CollectorOptions } from './create-collector.ts';
export { normalizeSpan } from './normalize/normalize-span.ts';
export type { NormalizeOptions } from './normalize/normalize-span.ts';
export { normalizeLogRecord } from './normalize/normalize-log.ts';
export { decodeTraceRequestProtobuf, decodeLogsRequestProtobuf } from './otlp/decode-protobuf.ts';
export { decodeTraceRequestJson, decodeLogsRequestJson } from './otlp/decode-json.ts';
export { traceRequestToMessages, logsRequestToMessages } from './pipeline.ts';
export type { DecodedTraceRequest, DecodedLogsRequest, DecodedSpan, DecodedLogRecord } from './otlp/types.ts';
