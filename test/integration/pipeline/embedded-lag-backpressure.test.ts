import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPipeline } from '../../../cli/pipeline.ts';
import type { JudgeClient, JudgeResponse } from '../../../shared/engines/checks/contract.ts';
import { loadConfig } from '../../../shared/runtime/config/index.ts';
import { startAll } from '../../../shared/runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { uniqueName, waitFor } from '../../helpers/infra.ts';
import { largeTraceExport } from '../../helpers/large-trace-export.ts';

// Issue 40, item 3: the embedded mode answered 200 to whatever it could not score, and its backlog
// grew to a minute of latency. Now, once a record has waited unread by a running stage for more
// than TRACECHECK_MAX_LAG_MS, the collector answers 429 + Retry-After; 200 again once the stage
// caught up. The slow stage here is the scorer, its judge held until the test lets it go.

const MAX_LAG_MS = 1_000;
const SPANS = 10;
const log = createSilentLogger();
const id = randomBytes(4).toString('hex');

/** A judge whose answers wait until `open()`. */
function heldJudge(): JudgeClient & { open(): void; calls(): number } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  return {
    async complete(): Promise<JudgeResponse> {
      calls += 1;
      await gate;
      return { text: '{"score": 1, "reason": "done"}', model: 'held-judge', inputTokens: 1, outputTokens: 1 };
    },
    open: () => release(),
    calls: () => calls,
  };
}

function exportOf(n: number): { ids: string[]; body: string } {
  const ids = Array.from({ length: n }, () => randomBytes(16).toString('hex'));
  const parts = ids.map((t) => JSON.parse(largeTraceExport(t, 'wide', 0, SPANS)) as { resourceSpans: unknown[] });
  return { ids, body: JSON.stringify({ resourceSpans: parts.flatMap((p) => p.resourceSpans) }) };
}

/** One trace's export split in two: its root alone, and every other span. */
function splitTrace(): { id: string; root: string; children: string } {
  const traceId = randomBytes(16).toString('hex');
  const body = JSON.parse(largeTraceExport(traceId, 'wide', 0, SPANS)) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ parentSpanId?: string }> }> }> };
  const part = (keep: (s: { parentSpanId?: string }) => boolean) => {
    const copy = structuredClone(body);
    for (const r of copy.resourceSpans) for (const sc of r.scopeSpans) sc.spans = sc.spans.filter(keep);
    return JSON.stringify(copy);
  };
  return { id: traceId, root: part((s) => s.parentSpanId === undefined), children: part((s) => s.parentSpanId !== undefined) };
}

async function post(url: string, body: string): Promise<{ status: number; retryAfter: string | null; text: string }> {
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
}

describe('backpressure by time behind, embedded', () => {
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  const groups = { assembler: uniqueName('lag-assembler'), scorer: uniqueName('lag-scorer'), sessions: uniqueName('lag-sessions'), problems: uniqueName('lag-problems') };

  it('answers 429 + Retry-After once a stage left a record unread past TRACECHECK_MAX_LAG_MS, 200 once it caught up, scores every accepted trace once, and closes the root-less part of a trace whose root it refused within 15 s', async () => {
    const config = loadConfig({
      TRACECHECK_DATA_DIR: mkdtempSync(join(tmpdir(), 'tracecheck-lag-')),
      TRACECHECK_OTLP_HTTP_PORT: '0',
      TRACECHECK_OTLP_GRPC_PORT: '0',
      TRACECHECK_TRACE_GRACE_MS: '200',
      TRACECHECK_MAX_LAG_MS: String(MAX_LAG_MS),
      TRACECHECK_SCORER_CONCURRENCY: '2',
      // The scorer reads at most two units ahead of those it scores: the rest wait unread on the bus,
      // which is what the time bound watches (units read ahead and waiting in the scorer are not).
      TRACECHECK_SCORER_READ_AHEAD_UNITS: '2',
      TRACECHECK_CHECKS: 'function_result_present,task_completed',
    });
    const judge = heldJudge();
    const pipeline = buildPipeline(config, log, new Set(['collector', 'assembler', 'scorer'] as const), {
      judge,
      groups,
      topics: { spans: `lag.spans.${id}`, units: `lag.units.${id}`, scores: `lag.scores.${id}`, sessions: `lag.sessions.${id}` },
    });
    stops.push(await startAll(pipeline.components, log));
    const url = pipeline.collectorUrl();
    const acknowledged: string[] = [];
    // A trace whose children are taken now, and whose root will be refused.
    const split = splitTrace();
    expect((await post(url, split.children)).status).toBe(200);

    // The scorer takes two units and waits on its judge; the units after them wait unread.
    const refused = await waitFor(
      async () => {
        const probe = exportOf(1);
        const answer = await post(url, probe.body);
        if (answer.status === 200) acknowledged.push(...probe.ids);
        return answer.status === 429 ? answer : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'a 429 once the scorer is behind by time' },
    );
    expect(refused.retryAfter).toBe('5');
    expect(refused.text).toContain(`pipeline behind, retry later: consumer group ${groups.scorer} has not read a record of lag.units.${id} written `);
    expect(refused.text).toContain(' ms ago (limit 1000 ms, TRACECHECK_MAX_LAG_MS)');
    const lagged = pipeline.metrics.registry.getSingleMetric('tracecheck_bus_lag_seconds');
    const gauge = await lagged!.get();
    expect(gauge.values.find((v) => v.labels.topic === `lag.units.${id}`)!.value).toBeGreaterThan(MAX_LAG_MS / 1000);
    expect(acknowledged.length).toBeGreaterThan(2);
    expect((await post(url, split.root)).status).toBe(429);
    const refusedAt = Date.now();

    // The judge answers: the scorer catches up, and exports are taken again.
    judge.open();
    await waitFor(
      async () => {
        const probe = exportOf(1);
        const answer = await post(url, probe.body);
        if (answer.status === 200) acknowledged.push(...probe.ids);
        return answer.status === 200 || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'a 200 again once the scorer caught up' },
    );

    // Every acknowledged trace scored once by each check, none twice, none of the refused.
    const store = pipeline.store!;
    const scored = async (): Promise<number> => (await store.queryScores({ unitIds: acknowledged, check: 'function_result_present', limit: 10_000 })).length;
    await waitFor(async () => ((await scored()) === acknowledged.length ? true : undefined), { timeoutMs: 30_000, description: 'every acknowledged trace scored' });
    const scores = await store.queryScores({ unitIds: acknowledged, limit: 10_000 });
    expect(scores.length).toBe(acknowledged.length * 2);
    expect(new Set(scores.map((s) => `${s.unit_id}/${s.check}`)).size).toBe(acknowledged.length * 2);
    expect((await pipeline.metrics.unitsScored.get()).values[0].value).toBe(acknowledged.length);

    // The trace whose root was refused: its children make one unit, closed within the refused
    // trace's grace (15 s) instead of the 300 s a root-less trace waits, scored once.
    const fragment = await waitFor(async () => (await store.getUnit(split.id)) ?? undefined, { timeoutMs: 40_000, intervalMs: 200, description: 'the refused trace closed' });
    const closedAfterMs = Date.now() - refusedAt;
    expect(fragment.span_count).toBe(SPANS - 1);
    await waitFor(async () => ((await store.queryScores({ unitId: split.id, limit: 100 })).length === 2 ? true : undefined), { timeoutMs: 10_000, description: 'the fragment scored' });
    expect((await pipeline.metrics.unitsScored.get()).values[0].value).toBe(acknowledged.length + 1);
    expect(judge.calls()).toBe(acknowledged.length + 1);
    process.stdout.write(`lag backpressure: ${acknowledged.length} traces acknowledged, each scored once; the refused trace's ${SPANS - 1} spans closed ${closedAfterMs} ms after its root was refused\n`);
  }, 90_000);
});
