export { loadConfig, ConfigSchema, ConfigError } from './config.ts';
export { DEFAULT_METRICS_PORTS, metricsPortFor } from './metrics-ports.ts';
export type { ContentRefSettings } from './content-refs.ts';
export type { Config, LogLevel } from './config.ts';
;
export type { LangfuseKeyPair } from './langfuse-keys.ts';
export type { EvaluationExportConfig,  } from './evaluation-export.ts';
export {
  DEFAULT_LAG_INTERVAL_MS,
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_MAX_SPANS_PER_TRACE,
  DEFAULT_SCORER_CONCURRENCY,
  DEFAULT_SEGMENT_BYTES,
  DEFAULT_TRACE_COMPLETE_GRACE_MS,
  DEFAULT_TRACE_ENTRY_GRACE_MS,
} from './defaults.ts';
;
export type { RedactionMode, RedactionRule } from './redaction.ts';
