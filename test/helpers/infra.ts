import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

// Integration tests run against the servers `bash scripts/infra.sh up` starts; CI or a developer
// with their own servers points the tests elsewhere with these two variables.
const DEFAULT_KAFKA_BROKERS = '127.0.0.1:19092';
const DEFAULT_CLICKHOUSE_URL = 'http://127.0.0.1:18123';

export function testKafkaBrokers(): string[] {
  const raw = process.env.TRACECHECK_TEST_KAFKA_BROKERS?.trim() || DEFAULT_KAFKA_BROKERS;
  return raw.split(',').map((b) => b.trim()).filter(Boolean);
}

export function testClickHouseUrl(): string {
  return process.env.TRACECHECK_TEST_CLICKHOUSE_URL?.trim() || DEFAULT_CLICKHOUSE_URL;
}

/**
 * A fresh name usable as Kafka topic, consumer group and ClickHouse database: [a-z0-9_], starts
 * with a letter, e.g. `uniqueName('spans')` → `spans_3f9c0a1b7e2d`.
 */
export function uniqueName(prefix: string): string {
  let base = prefix.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  if (!/^[a-z]/.test(base)) base = `t_${base}`.replace(/_+$/, '');
  return `${base}_${randomBytes(6).toString('hex')}`;
}

export interface WaitForOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the error at the deadline: "3 scores in ClickHouse". */
  description?: string;
}

/**
 * Polls `fn` until it returns something other than undefined, null or false, and returns that.
 * A throw counts as "not yet"; at the deadline the error names the description and the last
 * throw, so a failing test says what it waited for instead of hanging.
 */
export async function waitFor<T>(
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const description = options.description ?? 'condition';
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let attempts = 0;
  for (;;) {
    attempts += 1;
    try {
      const value = await fn();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() + intervalMs > deadline) {
      const why = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms (${attempts} attempts) waiting for ${description}${why}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
