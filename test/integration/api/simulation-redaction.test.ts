import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPipeline, type Pipeline } from '../../../cli/pipeline.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { startAll } from '../../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { duckDbText } from '../../e2e/redaction-search.ts';

// Issue 35.5: a simulation's dialog posted to the API is unit content that never passed the
// collector; `tracecheck up` (the API over DuckDB, redaction at its default) stores it redacted as
// the same dialog sent in spans would be, under the id the collector writes in those spans.

const SECRETS = ['ann@x.io', '4111.1111.1111.1111', '078-05-1120', 'sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz'];

describe('a simulation dialog posted to the API', () => {
  const log = createSilentLogger();
  const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-sim-redaction-'));
  let pipeline: Pipeline;
  let stop: () => Promise<void>;
  let stopped = false;
  beforeAll(async () => {
    pipeline = buildPipeline(loadConfig({ TRACECHECK_DATA_DIR: dataDir, TRACECHECK_API_PORT: '0' }), log, new Set(['api'] as const));
    stop = await startAll(pipeline.components, log);
  });
  afterAll(async () => {
    if (!stopped) await stop?.();
  });

  it('is stored and answered redacted, under the id spans carry, and found with the id as sent', async () => {
    const id = 'sim-for-ann@x.io';
    const messages = [
      { role: 'user', content: `I am ann@x.io, card 4111.1111.1111.1111, SSN 078-05-1120` },
      { role: 'assistant', content: 'Noted, ann@x.io.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'save', arguments: '{"key":"sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz"}' } }] },
    ];
    const url = `${pipeline.apiUrl()}/api/v1/simulations/${encodeURIComponent(id)}`;
    const posted = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ messages }) });
    expect(posted.status).toBe(201);
    const got = await fetch(url);
    expect(got.status).toBe(200);
    const doc = (await got.json()) as { messages: Array<{ content: string; tool_calls?: Array<{ function: { arguments: string } }> }> };
    expect(doc.messages.map((m) => m.content)).toEqual(['I am <email:1>, card <card:1>, SSN <ssn:1>', 'Noted, <email:1>.']);
    expect(doc.messages[1].tool_calls?.[0].function.arguments).toBe('{"key":"<openai_key:1>"}');

    await stop();
    stopped = true;
    const stored = await duckDbText(join(dataDir, 'tracecheck.duckdb'));
    expect(stored.text).toContain('<ssn:1>');
    // The whole id reads as an address (a local part may hold dashes): hashed as the collector hashes it in spans.
    expect(stored.text).toMatch(/"id":"<email:[0-9a-f]{16}>"/);
    for (const secret of SECRETS) expect(stored.text).not.toContain(secret);
  });
});
