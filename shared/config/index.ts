export { loadConfig, ConfigSchema, ConfigError, DEFAULT_TRACE_COMPLETE_GRACE_MS, DEFAULT_TRACE_ENTRY_GRACE_MS } from './config.ts';
export type { Config, LogLevel } from './config.ts';
