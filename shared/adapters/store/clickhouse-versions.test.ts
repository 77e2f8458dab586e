import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import { SUPPORTED_CLICKHOUSE, assertSupportedClickHouse } from './clickhouse-versions.ts';

describe('assertSupportedClickHouse', () => {
  it.each(['18.16.1', '18.16.1.1', '20.1.2.4', '24.8.4.13', '25.8.1.1', '26.7.2.1', '27.1.1.1'])('accepts %s', (version) => {
    expect(() => assertSupportedClickHouse(version)).not.toThrow();
  });

  it.each(['1.1.54343', '18.14.19', '19.17.4.11', '20.0.1', 'garbage', ''])('refuses %s, naming the supported versions', (version) => {
    expect(() => assertSupportedClickHouse(version)).toThrow(PermanentError);
    expect(() => assertSupportedClickHouse(version)).toThrow(`is not supported; the store runs on ${SUPPORTED_CLICKHOUSE}`);
  });
});
