import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsAccess, type Keyring } from '../../../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../../../shared/runtime/logging/index.ts';
import { createMetrics } from '../../../../shared/kit/metrics/index.ts';
import { createCollector, type Collector } from '../create-collector.ts';
import { createRecordingProducer } from '../testing/recording-producer.ts';

// Issue 23: the collector's /metrics (every project's counters) was open to anyone who could reach
// the OTLP port, although the API's needed the operator's token once keys exist.
const TOKEN = 'operator-metrics-token-0123456789';
let keysExist = true;
// The keyring's only question here: does a request without a key get in (no keys at all)?
const keyring = { authenticate: () => Promise.resolve(keysExist ? { ok: false, status: 401, message: 'no key' } : { ok: true, project: 'default', role: 'admin' }) } as unknown as Keyring;
let collector: Collector;
let base: string;

beforeAll(async () => {
  collector = createCollector({
    config: { host: '127.0.0.1', httpPort: 0, grpcPort: 0, limits: { maxBodyBytes: 1_000_000, maxAttributeBytes: 64 * 1024, maxSpansPerRequest: 5 }, topic: 'metrics-access' },
    producer: createRecordingProducer(),
    metrics: createMetrics(),
    metricsAccess: createMetricsAccess(keyring, TOKEN),
    log: createSilentLogger(),
  });
  await collector.start();
  base = collector.httpAddress();
});
afterAll(() => collector.shutdown());

describe("the collector's GET /metrics", () => {
  it('once keys exist, answers 401 without the operator token and with a wrong one, 200 with it', async () => {
    keysExist = true;
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.json()).toEqual({ code: 16, message: 'GET /metrics needs Authorization: Bearer <TRACECHECK_METRICS_TOKEN> once API keys exist' });
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer tc_some_project_key' } })).status).toBe(401);
    const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('tracecheck_spans_received_total');
  });

  it('with no key at all, is open like everything else', async () => {
    keysExist = false;
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  });
});
