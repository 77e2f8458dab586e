import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { createClickHouseConnection, splitClickHouseUrls } from './clickhouse-connection.ts';
import { sql } from './sql-quote.ts';

// The replica failover of the connection, with the HTTP client replaced by one per URL that answers
// as each test says (the real servers are in test/integration/store/clickhouse-cluster.test.ts).

type Answer = 'ok' | 'refused' | 'syntax';
const answers = new Map<string, Answer>();
const calls: string[] = [];

vi.mock('@clickhouse/client', () => ({
  createClient: (config: { url: string }) => {
    const respond = (what: string): Promise<unknown> => {
      calls.push(`${config.url} ${what}`);
      const answer = answers.get(config.url) ?? 'ok';
      if (answer === 'refused') return Promise.reject(Object.assign(new Error(`connect ECONNREFUSED ${config.url}`), { code: 'ECONNREFUSED' }));
      if (answer === 'syntax') return Promise.reject(new Error('Code: 62, e.displayText() = DB::Exception: Syntax error'));
      return Promise.resolve({ json: () => Promise.resolve([{ url: config.url }]) });
    };
    return { command: () => respond('command'), query: () => respond('query'), insert: () => respond('insert'), close: () => Promise.resolve() };
  },
}));

const A = 'http://a:8123';
const B = 'http://b:8123';
const C = 'http://c:8123';

beforeEach(() => {
  answers.clear();
  calls.length = 0;
});

const connect = (url: string) => createClickHouseConnection({ url, database: 'tc', log: createSilentLogger() });

describe('splitClickHouseUrls', () => {
  it('reads one URL or several separated by commas', () => {
    expect(splitClickHouseUrls(A)).toEqual([A]);
    expect(splitClickHouseUrls(` ${A}, ${B} ,`)).toEqual([A, B]);
    expect(() => splitClickHouseUrls(' , ')).toThrow(PermanentError);
  });
});

describe('replica failover', () => {
  it('moves to the next replica on a retriable failure and stays there', async () => {
    const connection = connect(`${A},${B}`);
    answers.set(A, 'refused');
    await connection.insert('write', 'scores', ['a'], [{ a: 1 }]);
    answers.set(A, 'ok'); // back, but the connection stays where it is
    expect(await connection.select('read', sql`SELECT 1`)).toEqual([{ url: B }]);
    expect(calls).toEqual([`${A} insert`, `${B} insert`, `${B} query`]);
  });

  it('tries each replica once per call, then fails retriably', async () => {
    const connection = connect(`${A},${B},${C}`);
    for (const url of [A, B, C]) answers.set(url, 'refused');
    await expect(connection.command('create', 'SELECT 1')).rejects.toBeInstanceOf(RetriableError);
    expect(calls).toEqual([`${A} command`, `${B} command`, `${C} command`]);
  });

  it('does not repeat a statement the server refused as wrong', async () => {
    const connection = connect(`${A},${B}`);
    answers.set(A, 'syntax');
    await expect(connection.command('create', 'SELEC 1')).rejects.toBeInstanceOf(PermanentError);
    expect(calls).toEqual([`${A} command`]);
  });

  it('with one URL, fails retriably, once', async () => {
    const connection = connect(A);
    answers.set(A, 'refused');
    await expect(connection.command('create', 'SELECT 1')).rejects.toBeInstanceOf(RetriableError);
    expect(calls).toEqual([`${A} command`]);
  });
});
