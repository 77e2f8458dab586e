export { loadConfig, ConfigSchema, ConfigError, DEFAULT_METRICS_PORTS, metricsPortFor } from './config.ts';
export type { Config } from './config.ts';
