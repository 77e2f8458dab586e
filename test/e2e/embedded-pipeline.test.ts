import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../tools/demo-agent/src/index.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';
import { expectDemoUnits, waitForScoredUnit } from './demo-expectations.ts';

// The embedded mode: in-process bus + DuckDB, with the demo agent's real OTel SDK export.
describe('embedded pipeline (in-process bus + DuckDB)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startPipeline({});
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('scores the demo agent\'s three conversations and serves them by trace id', async () => {
    expect(h.pipeline.bus.kind).toBe('memory');
    expect(h.pipeline.store?.kind).toBe('duckdb');
    const { traceIds } = await runDemo({ collectorUrl: h.pipeline.collectorUrl(), modelBaseUrl: h.modelUrl });
    const [healthy, toolFails, loops] = await Promise.all([
      waitForScoredUnit(h.pipeline.apiUrl(), traceIds.healthy),
      waitForScoredUnit(h.pipeline.apiUrl(), traceIds.toolFails),
      waitForScoredUnit(h.pipeline.apiUrl(), traceIds.loops),
    ]);
    expectDemoUnits(healthy, toolFails, loops);
  });

  it('keeps serving after malformed and wrongly typed bodies', async () => {
    const url = `${h.pipeline.collectorUrl()}/v1/traces`;
    const bad = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array([0xff, 0xff, 0xff, 0x0f, 0x01]) });
    expect(bad.status).toBe(400);
    const badJson = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans": [' });
    expect(badJson.status).toBe(400);
    expect(badJson.headers.get('content-type')).toContain('application/json');
    const wrongType = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(wrongType.status).toBe(415);
    const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({});
  });
});
