import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteArray, quoteNumber, quoteString, sql, sqlIdentifier } from '../../../shared/adapters/store/index.ts';
import { randomDatabaseName } from './clickhouse-test-server.ts';

// The quoting module against a real ClickHouse: what we quote is what the server stores and returns.
// Run on 18.16 (sql-quote-clickhouse.test.ts) and on the current engine (sql-quote-current.test.ts).

const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f';
const HOSTILE = [
  '',
  "it's",
  "'",
  "''",
  "\\'",
  "'; DROP TABLE t; --",
  "x' OR '1'='1",
  'back\\slash',
  'trailing backslash\\',
  '\\',
  '\\\\\\',
  '\\x41 is not A',
  '\\0 is not NUL',
  'line\nbreak\r\n\ttab',
  'nul\u0000byte',
  CONTROL,
  'ünïcødé 日本語 🎉 \u2028\u2029 \uFFFD',
  '`backtick` "double" {p:String} $1 ?',
  '/* comment */ -- comment',
];

/** The quoting cases on the ClickHouse `admin()` talks to (known once the file's servers are up). */
export function describeQuotingOn(label: string, admin: () => ClickHouseClient): void {
  const database = randomDatabaseName('tc_quote');

  async function selectRows(query: string): Promise<Record<string, unknown>[]> {
    // 64-bit integers as JSON strings on both: 18.16's default, no longer the current engine's.
    const rs = await admin().query({ query, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 1 } });
    return rs.json<Record<string, unknown>>();
  }

  beforeAll(async () => {
    await admin().command({ query: `CREATE DATABASE ${database}` });
    await admin().command({ query: `CREATE TABLE ${database}.t (id UInt32, s String) ENGINE = MergeTree() ORDER BY id` });
  });

  afterAll(async () => {
    await admin().command({ query: `DROP DATABASE IF EXISTS ${database}` });
  });

  describe(`quoteString on ${label}`, () => {
    it.each(HOSTILE.map((s, i) => [i, s] as const))('round-trips #%i through INSERT and SELECT exactly', async (id, s) => {
      const db = sqlIdentifier(database);
      await admin().command({ query: sql`INSERT INTO ${db}.t (id, s) VALUES (${id}, ${s})`.sqlText });
      expect(await selectRows(sql`SELECT s FROM ${db}.t WHERE id = ${id}`.sqlText)).toEqual([{ s }]);
      expect(await selectRows(sql`SELECT id FROM ${db}.t WHERE s = ${s}`.sqlText)).toEqual([{ id }]);
      expect(await selectRows(`SELECT ${quoteString(s)} AS s, length(${quoteString(s)}) AS n`)).toEqual([{ s, n: String(Buffer.byteLength(s)) }]);
    });

    it('keeps the table intact after every hostile insert', async () => {
      expect(await selectRows(`SELECT count() AS n FROM ${database}.t`)).toEqual([{ n: String(HOSTILE.length) }]);
    });

    it('stores a lone surrogate as U+FFFD', async () => {
      expect(await selectRows(`SELECT ${quoteString('a\uD800b')} AS s`)).toEqual([{ s: 'a\uFFFDb' }]);
    });
  });

  describe(`numbers and arrays on ${label}`, () => {
    it('round-trips finite numbers', async () => {
      const values = [0, 0.1, -5, 1e21, 5e-7, 1_763_600_000_000, -0.25, 0.1 + 0.2];
      const columns = values.map((v, i) => `toFloat64(${quoteNumber(v)}) AS n${i}`).join(', ');
      const rows = await selectRows(`SELECT ${columns}, 3 - ${quoteNumber(-5)} AS m, ${quoteArray([1.5, -2.5])} AS a`);
      expect(rows).toEqual([{ ...Object.fromEntries(values.map((v, i) => [`n${i}`, v])), m: 8, a: [1.5, -2.5] }]);
    });

    it('round-trips arrays of hostile strings', async () => {
      const values = HOSTILE.slice(0, 10);
      const rows = await selectRows(sql`SELECT ${values} AS a, has(${values}, ${"'; DROP TABLE t; --"}) AS h`.sqlText);
      expect(rows).toEqual([{ a: values, h: 1 }]);
    });
  });
}
