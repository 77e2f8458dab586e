import type { Config, LogLevel } from '../shared/runtime/config/index.ts';
import { createLogger, type Logger } from '../shared/runtime/logging/index.ts';

/**
 * The one place a command's log level is decided: TRACECHECK_LOG_LEVEL (parsed with the rest of
 * the configuration) when set, else the command's own default: `warn` for commands whose output
 * is the point (a report, a demo's scores), `info` for the long-running services.
 */
export function createCommandLogger(config: Pick<Config, 'logLevel'>, commandDefault: LogLevel, name?: string): Logger {
  return createLogger({ level: config.logLevel ?? commandDefault, ...(name !== undefined ? { name } : {}) });
}
