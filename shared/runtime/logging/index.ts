export { createLogger, createSilentLogger } from './create-logger.ts';
export type { Logger,  } from './create-logger.ts';
