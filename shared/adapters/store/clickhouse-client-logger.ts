import type { ErrorLogParams, Logger as ClientLogger, LogParams, WarnLogParams } from '@clickhouse/client';
import type { Logger } from '../../runtime/logging/index.ts';

/**
 * Routes the client's own logging into our pino logger. Its request errors go to debug: the store
 * rethrows each one classified, and the caller decides whether it is worth an error line.
 */
export function clientLoggerClass(log: Logger): new () => ClientLogger {
  return class PinoClickHouseLogger implements ClientLogger {
    trace(p: LogParams): void {
      log.trace({ module: p.module, args: p.args }, p.message);
    }
    debug(p: LogParams): void {
      log.debug({ module: p.module, args: p.args }, p.message);
    }
    info(p: LogParams): void {
      log.info({ module: p.module, args: p.args }, p.message);
    }
    warn(p: WarnLogParams): void {
      log.warn({ module: p.module, args: p.args, err: p.err }, p.message);
    }
    error(p: ErrorLogParams): void {
      log.debug({ module: p.module, args: p.args, err: p.err }, p.message);
    }
  };
}
