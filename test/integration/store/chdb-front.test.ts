import { gzipSync } from 'node:zlib';
import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChdbServer, type ChdbServer } from '../../helpers/chdb-server/start-chdb-server.ts';

// The HTTP front of the current engine answers what @clickhouse/client sends as a server does;
// if it did not, the store's suite on it would test the front, not the store.
let server: ChdbServer | undefined;
let client: ClickHouseClient | undefined;

beforeAll(async () => {
  server = await startChdbServer();
  client = createClient({ url: server.url, log: { level: ClickHouseLogLevel.OFF } });
  await client.command({ query: 'CREATE DATABASE front' });
  await client.command({ query: 'CREATE TABLE front.t (id UInt32, s String) ENGINE = MergeTree ORDER BY id' });
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

const post = (params: Record<string, string>, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(`${server!.url}/?${new URLSearchParams(params).toString()}`, { method: 'POST', body, headers });

describe('the chdb HTTP front', () => {
  it('answers ping and version', async () => {
    expect(await client!.ping()).toEqual({ success: true });
    const rs = await client!.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' });
    expect((await rs.json<{ v: string }>())[0].v).toMatch(/^26\.7\./);
  });

  it('inserts rows from the body with a summary, and binds query parameters as the server unescapes them', async () => {
    const hostile = ["it's", 'back\\slash', 'tab\there', 'new\nline', '{x:String}'];
    const r = await client!.insert({ table: 'front.t', values: hostile.map((s, id) => ({ id, s })), format: 'JSONEachRow' });
    expect(r.summary?.written_rows).toBe('5');
    for (const [id, s] of hostile.entries()) {
      const rs = await client!.query({ query: 'SELECT id FROM front.t WHERE s = {s:String} AND id >= {min:UInt32}', query_params: { s, min: 0 }, format: 'JSONEachRow' });
      expect(await rs.json()).toEqual([{ id }]);
    }
  });

  it('takes the database, default_format, a FORMAT clause over it, settings for one query only, and echoes query_id', async () => {
    const asked = await post({ database: 'front', default_format: 'JSONEachRow', query_id: 'q-1', max_threads: '1' }, "SELECT count() AS n, getSetting('max_threads') AS mt FROM t");
    expect(asked.status).toBe(200);
    expect(asked.headers.get('x-clickhouse-query-id')).toBe('q-1');
    expect(asked.headers.get('x-clickhouse-format')).toBe('JSONEachRow');
    expect(JSON.parse(asked.headers.get('x-clickhouse-summary')!)).toMatchObject({ read_rows: expect.any(String) });
    expect(await asked.text()).toBe('{"n":5,"mt":1}\n');
    const after = await post({ default_format: 'JSONEachRow' }, "SELECT getSetting('max_threads') != 1 AS reset, currentDatabase() AS db FORMAT JSONCompactEachRow");
    expect(await after.text()).toBe('[1, "default"]\n');
  });

  it('sends exceptions as the server does: code header, status, text with the version', async () => {
    const syntax = await post({}, 'SELEC 1');
    expect([syntax.status, syntax.headers.get('x-clickhouse-exception-code')]).toEqual([400, '62']);
    expect(await syntax.text()).toMatch(/^Code: 62\. DB::Exception: Syntax error: .* \(SYNTAX_ERROR\) \(version 26\.7\.\d+\.\d+\)\n$/s);
    const unknown = await post({}, 'SELECT 1 FROM front.nope');
    expect([unknown.status, unknown.headers.get('x-clickhouse-exception-code')]).toEqual([404, '60']);
    const setting = await post({ no_such_setting_x: '1' }, 'SELECT 1');
    expect(setting.headers.get('x-clickhouse-exception-code')).toBe('115');
    await expect(client!.query({ query: "SELECT 1 + 'a'" })).rejects.toMatchObject({ code: '43', type: 'ILLEGAL_TYPE_OF_ARGUMENT' });
    const stranger = createClient({ url: server!.url, username: 'stranger', log: { level: ClickHouseLogLevel.OFF } });
    await expect(stranger.query({ query: 'SELECT 1' })).rejects.toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
    await stranger.close();
  });

  it('compresses both ways when asked', async () => {
    const zipped = await post({ enable_http_compression: '1', default_format: 'JSONEachRow' }, gzipSync('SELECT 7 AS n'), { 'Content-Encoding': 'gzip', 'Accept-Encoding': 'gzip' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    // fetch decompresses a gzip body itself; the client does too.
    expect(await zipped.text()).toBe('{"n":7}\n');
    const viaClient = createClient({ url: server!.url, compression: { request: true, response: true }, log: { level: ClickHouseLogLevel.OFF } });
    await viaClient.insert({ table: 'front.t', values: [{ id: 9, s: 'zipped' }], format: 'JSONEachRow' });
    const rs = await viaClient.query({ query: "SELECT id FROM front.t WHERE s = 'zipped'", format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ id: 9 }]);
    await viaClient.close();
  });
});
