import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteArray, quoteNumber, quoteString, sql, sqlIdentifier } from '../../../shared/adapters/store/index.ts';
import { createAdminClient, randomDatabaseName } from './clickhouse-test-server.ts';

// The quoting module against the real server: what we quote is what ClickHouse stores and returns.

const database = randomDatabaseName('tc_quote');
const admin = createAdminClient();

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

async function selectRows(query: string): Promise<Record<string, unknown>[]> {
  const rs = await admin.query({ query, format: 'JSONEachRow' });
  return rs.json<Record<string, unknown>>();
}

beforeAll(async () => {
  await admin.command({ query: `CREATE DATABASE ${database}` });
  await admin.command({ query: `CREATE TABLE ${database}.t (id UInt32, s String) ENGINE = MergeTree() ORDER BY id` });
});

afterAll(async () => {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

describe('quoteString on a real ClickHouse', () => {
  it.each(HOSTILE.map((s, i) => [i, s] as const))('round-trips #%i through INSERT and SELECT exactly', async (id, s) => {
    const db = sqlIdentifier(database);
    await admin.command({ query: sql`INSERT INTO ${db}.t (id, s) VALUES (${id}, ${s})`.sqlText });
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

describe('numbers and arrays on a real ClickHouse', () => {
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
