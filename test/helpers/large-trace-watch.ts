// Sends a very large trace to the embedded pipeline while watching how long its event loop is held
// and asking /healthz throughout: test/e2e/large-traces.test.ts asserts what comes out (the unit, the
// answers), bench/large-traces.ts reports the delays against their budgets.
import { request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Harness } from './pipeline-harness.ts';
import { waitFor } from './infra.ts';

interface LoopDelay {
  maxMs: number;
  p99Ms: number;
  longestCpuMs: number;
}

/**
 * The longest the event loop was held, two ways: wall time between two ticks of a 5 ms timer, and
 * the CPU time this process used in that gap. On a shared 2-core machine a process also waits for
 * a core, which the wall figure counts and the CPU figure does not (it counts every thread of the
 * process, GC and DuckDB included, so it errs high, never low).
 */
function watchEventLoop(): { stop(): LoopDelay } {
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
export function send(url: string, body?: string): Promise<{ status: number; retryAfterS: number; text: string }> {
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

export interface UnitAnswer {
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

export interface Watched {
  unit: UnitAnswer['unit'];
  delay: LoopDelay;
  health: { answered: number; failed: number; slowestMs: number };
  /** Requests answered 429 and sent again after their Retry-After. */
  busy: number;
}

/** Sends the requests one after another while measuring the event loop and asking /healthz; returns once the unit is served. */
export async function sendAndWatch(h: Harness, traceId: string, bodies: readonly string[]): Promise<Watched> {
  const health = { answered: 0, failed: 0, slowestMs: 0 };
  let watching = true;
  const healthLoop = (async () => {
    while (watching) {
      const t0 = performance.now();
      const res = await send(`${h.pipeline.apiUrl()}/healthz`).catch(() => null);
      if (res?.status === 200) health.answered++;
      else health.failed++;
      health.slowestMs = Math.max(health.slowestMs, performance.now() - t0);
      // Paces the probe: a client asking /healthz every 50 ms.
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const loop = watchEventLoop();
  let busy = 0;
  for (const body of bodies) {
    for (;;) {
      const res = await send(`${h.pipeline.collectorUrl()}/v1/traces`, body);
      // The pipeline is behind (its backlog is full): an OTLP exporter waits as told and sends again.
      if (res.status === 429 && busy < 10) {
        busy++;
        await new Promise((r) => setTimeout(r, res.retryAfterS * 1000));
        continue;
      }
      if (res.status !== 200 || res.text !== '{}') throw new Error(`the collector answered ${res.status} ${res.text.slice(0, 200)}, not 200 {}`);
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
  return { unit: answer.unit, delay, health, busy };
}

/** The figures of one run, on one line. */
export function describeWatch(traceId: string, w: Watched): string {
  return `${traceId}: event loop delay max ${w.delay.maxMs.toFixed(0)} ms, p99 ${w.delay.p99Ms.toFixed(0)} ms, longest block ${w.delay.longestCpuMs.toFixed(0)} ms of CPU; /healthz ${w.health.answered} answers, slowest ${w.health.slowestMs.toFixed(0)} ms; ${w.busy} answers 429`;
}
