import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import { docsTableSql, parseClickHouseVersion, scoreRevisionsTableSql, scoresTableSql, unitRevisionsTableSql, unitsTableSql } from './clickhouse-schema.ts';
import { SHARDING_KEYS, distributedTableSql, localTableSql } from './clickhouse-shards.ts';

const opts = { database: 'tc' };
const old = parseClickHouseVersion('18.16.1');

describe('localTableSql', () => {
  it('makes every table of the schema a Replicated <table>_local ON CLUSTER, with a ZooKeeper path of its own', () => {
    const ddl: [string, string][] = [
      ['units', unitsTableSql(old, opts)],
      ['scores', scoresTableSql(old, opts)],
      ['docs', docsTableSql(opts)],
      ['unit_revisions', unitRevisionsTableSql(opts)],
      ['score_revisions', scoreRevisionsTableSql(old, opts)],
    ];
    for (const [table, create] of ddl) {
      const local = localTableSql(create, 'c1');
      expect(local.table).toBe(table);
      expect(local.sql.split('\n')[0]).toBe(`CREATE TABLE IF NOT EXISTS tc.${table}_local ON CLUSTER c1 (`);
      expect(local.sql).toContain(`Replicated`);
      expect(local.sql).toContain(`('/clickhouse/tables/{shard}/tc/${table}_local', '{replica}'`);
    }
  });

  it('refuses a table it has no sharding key for', () => {
    expect(() => localTableSql('CREATE TABLE IF NOT EXISTS tc.other (a String)\nENGINE = MergeTree()\nORDER BY a', 'c1')).toThrow(PermanentError);
  });
});

describe('distributedTableSql', () => {
  it("keeps the local table's columns, a MATERIALIZED one as an ALIAS, and shards by the table's key", () => {
    const sql = distributedTableSql('tc', 'scores', 'c1', [
      { name: 'unit_id', type: 'String', default_kind: '', default_expression: '' },
      { name: 'check', type: 'String', default_kind: '', default_expression: '' },
      { name: 'project', type: 'String', default_kind: 'DEFAULT', default_expression: "'default'" },
      { name: 'created_at', type: 'DateTime', default_kind: 'MATERIALIZED', default_expression: 'toDateTime(intDiv(created_at_ms, 1000))' },
    ]);
    expect(sql).toBe(
      [
        'CREATE TABLE IF NOT EXISTS tc.scores ON CLUSTER c1 (',
        '  `unit_id` String,',
        '  `check` String,',
        "  `project` String DEFAULT 'default',",
        '  `created_at` DateTime ALIAS toDateTime(intDiv(created_at_ms, 1000))',
        ')',
        'ENGINE = Distributed(c1, tc, scores_local, cityHash64(unit_id))',
      ].join('\n'),
    );
  });

  it("keeps every row a unit's dedup needs on one shard: unit tables by unit id, docs by their key", () => {
    expect(SHARDING_KEYS).toEqual({
      units: 'cityHash64(unit_id)',
      unit_revisions: 'cityHash64(unit_id)',
      scores: 'cityHash64(unit_id)',
      score_revisions: 'cityHash64(unit_id)',
      docs: 'cityHash64(kind, project, id)',
    });
  });

  it('refuses an unknown table, no columns, and names that are not identifiers', () => {
    const col = { name: 'a', type: 'String', default_kind: '', default_expression: '' };
    expect(() => distributedTableSql('tc', 'other', 'c1', [col])).toThrow(PermanentError);
    expect(() => distributedTableSql('tc', 'units', 'c1', [])).toThrow(PermanentError);
    expect(() => distributedTableSql('tc', 'units', "c'; DROP", [col])).toThrow(PermanentError);
    expect(() => distributedTableSql('tc', 'units', 'c1', [{ ...col, name: 'a`b' }])).toThrow(PermanentError);
  });
});
