import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import { clusterStatementSql, replicatedTableSql } from './clickhouse-cluster.ts';
import {
  ADDED_COLUMNS,
  addColumnSql,
  createDatabaseSql,
  docsTableSql,
  parseClickHouseVersion,
  scoreRevisionsTableSql,
  scoresTableSql,
  unitRevisionsTableSql,
  unitsTableSql,
} from './clickhouse-schema.ts';

describe('replicatedTableSql', () => {
  const opts = { database: 'tc' };
  const old = parseClickHouseVersion('18.16.1');

  it('makes every table of the schema ON CLUSTER and Replicated, with its own ZooKeeper path and its version column kept', () => {
    const tables: [string, string, string][] = [
      ['scores', scoresTableSql(old, opts), 'write_seq'],
      ['units', unitsTableSql(old, opts), 'assembled_at_ms'],
      ['docs', docsTableSql(opts), 'write_seq'],
      ['unit_revisions', unitRevisionsTableSql(opts), 'write_seq'],
      ['score_revisions', scoreRevisionsTableSql(old, opts), 'write_seq'],
    ];
    for (const [table, ddl, version] of tables) {
      const replicated = replicatedTableSql(ddl, 'tc_cluster');
      expect(replicated.split('\n')[0]).toBe(`CREATE TABLE IF NOT EXISTS tc.${table} ON CLUSTER tc_cluster (`);
      expect(replicated).toContain(`\nENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/tc/${table}', '{replica}', ${version})\n`);
      // Everything else (columns, ORDER BY, PARTITION BY) is the single server's.
      expect(replicated.split('\n').slice(1).filter((l) => !l.startsWith('ENGINE'))).toEqual(ddl.split('\n').slice(1).filter((l) => !l.startsWith('ENGINE')));
    }
  });

  it('keeps a TTL clause of a modern server after the engine', () => {
    const replicated = replicatedTableSql(scoresTableSql(parseClickHouseVersion('24.8.1'), { database: 'tc', ttlDays: 30 }), 'c');
    expect(replicated).toMatch(/ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/\{shard\}\/tc\/scores', '\{replica\}', write_seq\)\nPARTITION BY toYYYYMM\(unit_end\)\nORDER BY .*\nTTL created_at \+ INTERVAL 30 DAY$/);
  });

  it('refuses a statement it does not recognise, and a cluster name that is not an identifier', () => {
    expect(() => replicatedTableSql('CREATE TABLE tc.x (a String) ENGINE = Log', 'c')).toThrow(PermanentError);
    expect(() => replicatedTableSql(docsTableSql(opts), "c'; DROP")).toThrow(PermanentError);
  });
});

describe('clusterStatementSql', () => {
  it('runs the database creation and added columns on every host', () => {
    expect(clusterStatementSql(createDatabaseSql({ database: 'tc' }), 'c1')).toBe('CREATE DATABASE IF NOT EXISTS tc ON CLUSTER c1');
    const added = ADDED_COLUMNS[0];
    expect(clusterStatementSql(addColumnSql({ database: 'tc' }, added), 'c1')).toBe(`ALTER TABLE tc.${added.table} ON CLUSTER c1 ADD COLUMN ${added.column} ${added.type}`);
    expect(() => clusterStatementSql('DROP TABLE tc.scores', 'c1')).toThrow(PermanentError);
  });
});
