import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollector, type Collector } from '../../../services/collector/src/index.ts';
import type { Authorize } from '../../../services/collector/src/ingest.ts';
import { createRecordingProducer } from '../../../services/collector/src/testing/recording-producer.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { FIXTURES_DIR, project } from './fixture-expectations.ts';

// The Langfuse SDKs' own requests (path, headers, body: test/fixtures/otlp/*langfuse*/
// weather-agent.requests.json beside the captures) sent to a real collector whose operator mapped
// each SDK's key pair to an ingest key: accepted as that key's project, exactly the expected
// envelopes; a wrong pair is 401 and produces nothing.

const producer = createRecordingProducer();
let collector: Collector;
// A keyring with one ingest key of project shop.
const authorize: Authorize = (header) => Promise.resolve(header === 'Bearer tc_ingest_SHOP' ? { ok: true, project: 'shop' } : { ok: false, status: 401, message: 'unknown or revoked API key' });

beforeAll(async () => {
  collector = createCollector({
    config: {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      limits: { maxBodyBytes: 20 * 1024 * 1024, maxAttributeBytes: 1024 * 1024, maxSpansPerRequest: 10_000 },
      topic: 'langfuse-door',
      langfuseKeys: [
        { publicKey: 'pk-lf-js', secretKey: 'sk-lf-js', key: 'tc_ingest_SHOP' },
        { publicKey: 'pk-lf-py', secretKey: 'sk-lf-py', key: 'tc_ingest_SHOP' },
      ],
    },
    producer,
    authorize,
    log: createSilentLogger(),
  });
  await collector.start();
});
afterAll(() => collector.shutdown());

interface SdkRequest {
  path: string;
  headers: Record<string, string>;
}

const CAPTURES = [
  { family: 'langfuse-js', requests: 2 },
  { family: 'python/langfuse', requests: 1 },
];

function sdkRequests(family: string): Array<SdkRequest & { body: Buffer }> {
  const dir = join(FIXTURES_DIR, family);
  const requests = JSON.parse(readFileSync(join(dir, 'weather-agent.requests.json'), 'utf8')) as SdkRequest[];
  return requests.map((r) => {
    const raw = readFileSync(join(dir, r.headers['content-type'] === 'application/json' ? 'weather-agent.otlp.json' : 'weather-agent.otlp.pb'));
    return { ...r, body: r.headers['content-encoding'] === 'gzip' ? gzipSync(raw) : raw };
  });
}

describe.each(CAPTURES)('the $family SDK pointed at the collector', ({ family, requests }) => {
  const expected = (JSON.parse(readFileSync(join(FIXTURES_DIR, family, 'weather-agent.expected.json'), 'utf8')) as { records: unknown[] }).records;

  it('its requests, as sent (Langfuse path, Basic key pair, x-langfuse-* headers), give the expected envelopes in the mapped key’s project', async () => {
    const sent = sdkRequests(family);
    expect(sent).toHaveLength(requests);
    for (const r of sent) {
      expect(r.path).toBe('/api/public/otel/v1/traces');
      producer.sent.length = 0;
      const res = await fetch(`${collector.httpAddress()}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
      expect(res.status).toBe(200);
      expect(producer.sent.map((s) => project(s.message))).toEqual(expected);
      expect(new Set(producer.sent.map((s) => (JSON.parse(s.message.value) as { project?: string }).project))).toEqual(new Set(['shop']));
    }
  });

  it('a wrong secret key is 401 naming the setting, and nothing is produced', async () => {
    const [r] = sdkRequests(family);
    const publicKey = r.headers['x-langfuse-public-key'];
    producer.sent.length = 0;
    const res = await fetch(`${collector.httpAddress()}${r.path}`, { method: 'POST', headers: { ...r.headers, authorization: `Basic ${Buffer.from(`${publicKey}:sk-lf-wrong`).toString('base64')}` }, body: r.body });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('TRACECHECK_LANGFUSE_KEYS');
    expect(producer.sent).toEqual([]);
  });
});
