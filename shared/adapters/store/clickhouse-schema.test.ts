import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import { hasSkipIndexes, parseClickHouseVersion, scoresTableSql, searchIndexSql, unitsTableSql } from './clickhouse-schema.ts';

describe('parseClickHouseVersion', () => {
  it.each([
    ['18.16.1', false],
    ['19.17.4.11', false],
    ['20.1.2.4', true],
    ['24.8.4.13', true],
    ['25.10.1.1', true],
    ['garbage', false],
  ])('%s → modern %s', (version, modern) => {
    expect(parseClickHouseVersion(version)).toEqual({ version, modern });
  });
});

describe('the explorer search index', () => {
  it.each([
    ['18.16.1', false],
    ['21.12.4', false],
    ['22.1.3', true],
    ['26.7.2.1', true],
  ])('%s → skip indexes %s', (version, has) => {
    expect(hasSkipIndexes(parseClickHouseVersion(version))).toBe(has);
  });

  it('adds the ngram index to units, then builds it for the parts already written', () => {
    expect(searchIndexSql({ database: 'tc' })).toEqual([
      'ALTER TABLE tc.units ADD INDEX IF NOT EXISTS search_text_ngrams search_text TYPE ngrambf_v1(3, 32768, 2, 0) GRANULARITY 1',
      'ALTER TABLE tc.units MATERIALIZE INDEX search_text_ngrams',
    ]);
  });
});

describe('DDL', () => {
  const old = parseClickHouseVersion('18.16.1');
  const modern = parseClickHouseVersion('24.8.1');

  it('uses only what 18.16 understands on old servers, even with a TTL configured', () => {
    for (const ddl of [scoresTableSql(old, { database: 'tc', ttlDays: 30 }), unitsTableSql(old, { database: 'tc', ttlDays: 30 })]) {
      expect(ddl).not.toMatch(/LowCardinality|TTL|CODEC|DateTime64|Map\(/);
      expect(ddl).toContain('ENGINE = ReplacingMergeTree(');
    }
  });

  it('adds LowCardinality on modern servers and a TTL only when configured', () => {
    expect(scoresTableSql(modern, { database: 'tc' })).toContain('`check` LowCardinality(String)');
    expect(scoresTableSql(modern, { database: 'tc' })).not.toContain('TTL');
    expect(scoresTableSql(modern, { database: 'tc', ttlDays: 30 })).toContain('TTL created_at + INTERVAL 30 DAY');
    expect(unitsTableSql(modern, { database: 'tc', ttlDays: 7 })).toContain('TTL assembled_at + INTERVAL 7 DAY');
  });

  it('refuses a database name that is not a plain identifier', () => {
    expect(() => scoresTableSql(old, { database: 'tc.x' })).toThrow(PermanentError);
    expect(() => unitsTableSql(old, { database: 'tc`; DROP' })).toThrow(PermanentError);
  });
});
