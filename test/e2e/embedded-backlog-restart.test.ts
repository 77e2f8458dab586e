import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedCounts, embeddedPorts, probeUntilSubSecond, scoredTotal, startEmbeddedUp, type EmbeddedUp } from '../helpers/embedded-up.ts';
import { genAiRunsExport, genAiRunsProtobuf, SPANS_PER_RUN } from '../helpers/genai-run-export.ts';
import { waitFor } from '../helpers/infra.ts';
import { sendWithRetries } from '../helpers/retrying-senders.ts';
import { report } from '../helpers/score-counts.ts';

// Issue 22's restart under a backlog, embedded mode: `tracecheck up` is sent runs as fast as the
// test's exporters go until its assembler is far behind, killed with SIGKILL, and started again on
// the same data dir, where the backlog waits in the bus's log on disk. How far behind it can be is
// the bus's bound, TRACECHECK_BACKLOG_MAX_RECORDS (default 100,000 records of a topic some group
// has not read; one span is one record of the spans topic): past it the collector answers 429.
// After the restart every acknowledged run is scored exactly once, the process's RSS stays under
// RSS_BOUND_MB, and a run sent then is scored within a second again within RECOVERY_BOUND_MS.

const SEND_MS = 25_000;
const TARGET_UNREAD = 20_000;
const SENDERS = 8;
const SLOW_HOLD_OPEN = 10;
const TRACES_PER_REQUEST = 50;
const RSS_BOUND_MB = 800;
const RECOVERY_BOUND_MS = 120_000;

describe('embedded tracecheck up killed far behind, then restarted on its backlog', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-backlog-'));
  let up: EmbeddedUp | undefined;
  afterAll(async () => {
    await up?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('recovers: every acknowledged run scored once, bounded memory, back to sub-second scoring', { timeout: 300_000 }, async () => {
    const ports = await embeddedPorts();
    // Of the bound in records: the bound in time (TRACECHECK_MAX_LAG_MS) is set out of its way.
    const env = { TRACECHECK_CHECKS: 'function_result_present', TRACECHECK_MAX_LAG_MS: String(3_600_000) };
    // The first run's assembler is the slow stage (as in embedded-burst.test.ts: the test's senders
    // alone do not get ahead of the pipeline here), so the backlog builds; the restart runs with the defaults.
    const first = await startEmbeddedUp(dataDir, ports, { ...env, TRACECHECK_ASSEMBLER_HOLD_OPEN_TRACES: String(SLOW_HOLD_OPEN) });
    up = first;
    // Send until the assembler is TARGET_UNREAD spans behind (or SEND_MS passed); every export is
    // answered before the kill, so what was acknowledged is exact.
    const sendEnd = Date.now() + SEND_MS;
    let unread = 0;
    const watcher = setInterval(() => void first.unread('tracecheck.spans').then((n) => (unread = Math.max(unread, n)), () => undefined), 250);
    const sent = await sendWithRetries({ url: first.collectorUrl, senders: SENDERS, more: () => Date.now() < sendEnd && unread < TARGET_UNREAD, makeExport: () => genAiRunsProtobuf(TRACES_PER_REQUEST) });
    clearInterval(watcher);
    const unreadAtKill = await first.unread('tracecheck.spans');
    const scoredAtKill = await scoredTotal(first.apiUrl);
    await first.kill();

    const t0 = Date.now();
    const second = await startEmbeddedUp(dataDir, ports, env);
    up = second;
    const startMs = Date.now() - t0;
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, second.rssMb())), 500);
    try {
      let drainMs = -1;
      const drained = waitFor(async () => (await scoredTotal(second.apiUrl)) >= sent.acknowledged.length || undefined, { timeoutMs: RECOVERY_BOUND_MS, intervalMs: 1_000, description: 'every acknowledged run scored' }).then(() => (drainMs = Date.now() - t0));
      const recovery = await probeUntilSubSecond(second, t0, RECOVERY_BOUND_MS, () => genAiRunsExport(1));
      await drained;
      const counts = await embeddedCounts(second.apiUrl);
      const expected = [...sent.acknowledged, ...recovery.probeIds];
      report('embedded backlog restart', { spansAcknowledged: sent.acknowledged.length * SPANS_PER_RUN, refused429: sent.refused429, unreadSpansAtKill: unreadAtKill, runsScoredAtKill: scoredAtKill, restartMs: startMs, drainMs, subSecondAfterRestartMs: recovery.subSecondAfterMs, probeMs: recovery.probeMs, upMaxRssMb: Math.round(maxRss) });
      // It really was behind when killed.
      expect(unreadAtKill).toBeGreaterThan(0);
      expect(counts.scoreRows).toBe(expected.length);
      expect(expected.filter((id) => counts.scoresPerUnit.get(id) !== 1)).toEqual([]);
      expect(expected.filter((id) => counts.spansPerUnit.get(id) !== SPANS_PER_RUN)).toEqual([]);
      expect(counts.spansPerUnit.size).toBe(expected.length);
      expect(maxRss).toBeLessThan(RSS_BOUND_MB);
    } finally {
      clearInterval(sampler);
    }
  });
});
