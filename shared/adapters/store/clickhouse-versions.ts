import { PermanentError } from '../../runtime/errors/index.ts';

/**
 * The ClickHouse versions the store runs on, said in every refusal. 18.16 (Debian's package) takes
 * the schema's portable branch; 20.1 and later take the modern one (LowCardinality, TTL). CI runs
 * both branches: a 18.16 server, and the 26.7 engine (npm `chdb`) behind an HTTP front.
 * 19.x and anything before 18.16 are untested: neither branch was written or run for them.
 */
export const SUPPORTED_CLICKHOUSE = '18.16.x, or 20.1 and later (tested: 18.16.1 and 26.7)';

/** Throws a permanent error naming the supported versions when `version` is not one of them. */
export function assertSupportedClickHouse(version: string): void {
  const m = /^(\d+)\.(\d+)(?:\.|$)/.exec(version.trim());
  const major = m ? Number(m[1]) : NaN;
  const minor = m ? Number(m[2]) : NaN;
  const supported = (major === 18 && minor === 16) || major > 20 || (major === 20 && minor >= 1);
  if (!supported) {
    throw new PermanentError(`ClickHouse ${JSON.stringify(version.slice(0, 80))} is not supported; the store runs on ${SUPPORTED_CLICKHOUSE}`);
  }
}
