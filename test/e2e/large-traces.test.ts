import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage, Consumer } from '../../shared/adapters/bus/index.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';
import { largeTraceRequests } from '../helpers/large-trace-export.ts';
import { waitFor } from '../helpers/infra.ts';

// Issue 11: one hostile trace must neither freeze the process nor crash assembly. The whole
// embedded pipeline runs in this process, so the event loop's delay measured here is what the
// collector's and the API's clients wait: /healthz is asked throughout.

const MAX_SPANS = 10_000;
// The chain comes in the batches an OTel SDK sends (512 spans by default); the 130,000-span trace
// in 8 MB requests of 10,000 spans, the most the collector takes. The collector converts a request
// in slices with yields in between (before: one synchronous pass of about 300-500 ms of CPU for
// 10,000 spans); what it cannot slice is JSON.parse of the body (20-30 ms for 8 MB standalone).
const SDK_BATCH = 500;
const LARGEST_REQUEST = 10_000;

/**
 * The longest the event loop was held, two ways: wall time between two ticks of a 5 ms timer, and
 * the CPU time this process used in that gap. On a shared 2-core machine a process also waits for
 * a core, which the wall figure counts and the CPU figure does not (it counts every thread of the
 * process, GC and DuckDB included, so it errs high, never low).
 */
function watchEventLoop() {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  let longestCpuMs = 0;
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    longestCpuMs = Math.max(longestCpuMs, Math.min(cpuMs, wall - lastWall));
    lastWall = wall;
    lastCpu = cpu;
  }, 5);
  return {
    stop() {
      clearInterval(timer);
      histogram.disable();
      return { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, longestCpuMs };
    },
  };
}

/**
 * One request on a connection of its own: a kept-alive connection that the server closes while
 * the test waits would be reset under the next request (the server's keep-alive race, not ours).
 */
function send(url: string, body?: string): Promise<{ status: number; retryAfterS: number; text: string }> {
  const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfterS: Number(res.headers['retry-after'] ?? 0), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface UnitAnswer {
  unit: {
    unit_id: string;
    span_count: number;
    truncated: boolean;
    agent_name: string | null;
    errors: Array<{ span_id?: string; type?: string; message: string }>;
    usage: { input_tokens?: number };
    tool_calls: Array<{ id: string; result: string | null }>;
  };
}

describe('very large and duplicated traces (embedded pipeline)', () => {
  let h: Harness;
  let deadLetters: BusMessage[];
  let dlq: Consumer;
  beforeAll(async () => {
    h = await startPipeline({ TRACECHECK_MAX_SPANS_PER_TRACE: String(MAX_SPANS), TRACECHECK_CHECKS: 'function_result_present' });
    deadLetters = [];
    dlq = h.pipeline.bus.createConsumer({ topic: `${h.topics.spans}.dlq`, groupId: `dlq-${randomBytes(4).toString('hex')}`, handle: (m) => Promise.resolve(void deadLetters.push(m)) });
    await dlq.start();
  });
  afterAll(async () => {
    await dlq?.shutdown();
    await h?.stop();
  });

  /** Sends the requests one after another while measuring the event loop and asking /healthz; returns once the unit is served. */
  async function sendAndWatch(traceId: string, bodies: readonly string[]) {
    const health = { answered: 0, failed: 0, slowestMs: 0 };
    let watching = true;
    const healthLoop = (async () => {
      while (watching) {
        const t0 = performance.now();
        const res = await send(`${h.pipeline.apiUrl()}/healthz`).catch(() => null);
        if (res?.status === 200) health.answered++;
        else health.failed++;
        health.slowestMs = Math.max(health.slowestMs, performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const loop = watchEventLoop();
    let busy = 0;
    for (const body of bodies) {
      for (;;) {
        const res = await send(`${h.pipeline.collectorUrl()}/v1/traces`, body);
        // The pipeline is behind (its backlog is full): an OTLP exporter waits and sends again.
        if (res.status === 429 && busy < 10) {
          busy++;
          await new Promise((r) => setTimeout(r, res.retryAfterS * 1000));
          continue;
        }
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toEqual({});
        break;
      }
    }
    // The trace closes at the cap before its root (sent last) arrives; the root re-opens it.
    const answer = await waitFor(
      async () => {
        const res = await fetch(`${h.pipeline.apiUrl()}/api/v1/units/${traceId}`);
        const body = res.status === 200 ? ((await res.json()) as UnitAnswer) : null;
        return body?.unit.agent_name === 'runaway-agent' ? body : null;
      },
      { timeoutMs: 90_000, intervalMs: 200, description: `unit ${traceId} with its root` },
    );
    const delay = loop.stop();
    watching = false;
    await healthLoop;
    process.stdout.write(`${traceId}: event loop delay max ${delay.maxMs.toFixed(0)} ms, p99 ${delay.p99Ms.toFixed(0)} ms, longest block ${delay.longestCpuMs.toFixed(0)} ms of CPU; /healthz ${health.answered} answers, slowest ${health.slowestMs.toFixed(0)} ms; ${busy} answers 429\n`);
    return { unit: answer.unit, delay, health };
  }

  it('a 30,000-span parent chain: the process keeps answering, the unit is kept to the cap and flagged truncated', async () => {
    const traceId = randomBytes(16).toString('hex');
    const { unit, delay, health } = await sendAndWatch(traceId, largeTraceRequests(traceId, 'chain', 30_000, SDK_BATCH));
    expect(unit.span_count).toBe(MAX_SPANS + 1); // the first 10,000 to arrive and the root, which came last
    expect(unit.truncated).toBe(true);
    expect(unit.agent_name).toBe('runaway-agent');
    expect(unit.usage.input_tokens).toBe(10); // every span wraps the next: only the innermost one counts
    expect(unit.errors).toEqual([
      { type: 'tracecheck.span_limit', message: 'the trace had more records than the limit of 10000 spans per trace: 19999 spans and 0 log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)' },
    ]);
    expect(health.failed).toBe(0);
    expect(health.answered).toBeGreaterThan(0);
    // Blocked for 44.6 s before (quadratic assembly). The wall-clock delay also counts the time
    // this process waited for a core on a shared 2-core machine (load 14 here: 200–450 ms), so
    // the bound is asserted on CPU time, the wall clock against a stall. Standalone 45-55 ms (one
    // request's conversion, an unpacking or assembly step, GC); it was 95-140 ms while the closed
    // trace's 10,000 packed records were unpacked in one go, and once over 150 in a CI run. 150
    // leaves room for the GC threads the CPU figure counts.
    expect(delay.longestCpuMs).toBeLessThan(150);
    expect(delay.maxMs).toBeLessThan(2_000);
  });

  it('a 130,000-span wide trace: no crash, the unit is flagged truncated, nothing is dead-lettered', async () => {
    const traceId = randomBytes(16).toString('hex');
    const { unit, delay, health } = await sendAndWatch(traceId, largeTraceRequests(traceId, 'wide', 130_000, LARGEST_REQUEST));
    expect(unit.span_count).toBe(MAX_SPANS + 1);
    expect(unit.truncated).toBe(true);
    expect(unit.errors.map((e) => e.message)).toEqual([
      'the trace had more records than the limit of 10000 spans per trace: 119999 spans and 0 log records after it were left out (TRACECHECK_MAX_SPANS_PER_TRACE)',
    ]);
    expect(health.failed).toBe(0);
    expect(deadLetters).toEqual([]);
    // Before the collector converted a request in slices, the longest block here was 648 ms of
    // CPU (1,465 ms wall; load 10 on 2 cores); after, 150-200 ms (440-460 ms wall) on the same
    // box: what is left is JSON.parse of one 8 MB body, major GCs of a heap holding a
    // 10,000-span trace, and the in-process bus (CPU time, for the reasons given with the chain).
    // Since the collector converts on a worker thread, the figure also counts that thread's CPU for
    // a 10,000-span request converted in one pass beside the main thread (314 ms once in a CI run
    // on a quiet machine): the bound sits between that and the 648 ms before slicing.
    expect(delay.longestCpuMs).toBeLessThan(500);
    expect(delay.maxMs).toBeLessThan(2_000);
  });

  it('a span id sent twice with different contents: both spans are kept and the unit says so; an exact re-send is kept once', async () => {
    const traceId = randomBytes(16).toString('hex');
    const toolSpan = (result: string) => ({
      traceId,
      spanId: 'aaaaaaaaaaaaaaaa',
      parentSpanId: 'bbbbbbbbbbbbbbbb',
      name: 'execute_tool lookup',
      kind: 1,
      startTimeUnixNano: '1700000000100000000',
      endTimeUnixNano: '1700000000200000000',
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'lookup' } },
        { key: 'gen_ai.tool.call.result', value: { stringValue: result } },
      ],
      status: {},
    });
    const root = { traceId, spanId: 'bbbbbbbbbbbbbbbb', name: 'invoke_agent dup', kind: 1, startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000300000000', attributes: [], status: {} };
    const body = (spans: object[]) => JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'hostile' }, spans }] }] });
    for (const spans of [[toolSpan('first')], [toolSpan('first')], [toolSpan('second')], [root]]) {
      const res = await send(`${h.pipeline.collectorUrl()}/v1/traces`, body(spans));
      expect(res.status).toBe(200);
    }
    const answer = await waitFor(
      async () => {
        const res = await send(`${h.pipeline.apiUrl()}/api/v1/units/${traceId}`);
        return res.status === 200 ? (JSON.parse(res.text) as UnitAnswer) : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: `unit ${traceId}` },
    );
    expect(answer.unit.span_count).toBe(3);
    expect(answer.unit.tool_calls.map((c) => [c.id, c.result])).toEqual([
      ['span:aaaaaaaaaaaaaaaa', 'first'],
      ['span:aaaaaaaaaaaaaaaa#2', 'second'],
    ]);
    expect(answer.unit.errors).toEqual([
      { span_id: 'aaaaaaaaaaaaaaaa', type: 'tracecheck.duplicate_span_id', message: 'span id aaaaaaaaaaaaaaaa arrived 2 times with different contents; every copy is kept' },
    ]);
  });
});
