import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** Defaults to stderr, so stdout stays free for command output (e.g. `tracecheck score`). */
  destination?: DestinationStream;
}

/** The one root logger, made in a composition root and handed down as children. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: options.level ?? 'info', name: options.name ?? 'tracecheck', base: undefined },
    options.destination ?? pino.destination(2),
  );
}

/** A logger that drops everything, for tests and pure-library callers. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
