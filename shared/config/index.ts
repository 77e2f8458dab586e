export { loadConfig, ConfigSchema, ConfigError } from './config.ts';
export type { Config } from './config.ts';
