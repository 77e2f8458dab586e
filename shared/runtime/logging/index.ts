export { createLogger, createSilentLogger } from './create-logger.ts';
export type { Logger, LoggerOptions } from './create-logger.ts';
