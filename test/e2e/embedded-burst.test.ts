import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedCounts, embeddedPorts, probeUntilSubSecond, scoredTotal, startEmbeddedUp, type EmbeddedUp } from '../helpers/embedded-up.ts';
import { genAiRunsExport, genAiRunsProtobuf, SPANS_PER_RUN } from '../helpers/genai-run-export.ts';
import { waitFor } from '../helpers/infra.ts';
import { sendWithRetries } from '../helpers/retrying-senders.ts';
import { report } from '../helpers/score-counts.ts';

// Issue 22's burst, embedded mode (kafka-burst.test.ts is the Kafka one): `tracecheck up` as its
// own process, exporters that honour Retry-After sending as fast as they can for BURST_MS. In one
// process the collector's decoding and the pipeline share the event loop, and on this shared machine
// the test's senders never got ahead of the pipeline (0 answers 429 at a bound of 1,000 records, measured): so the
// assembler is made the slow stage, holding reading at HOLD_OPEN open traces (each open for the
// 200 ms complete-trace grace: about 500 spans/s sustainable, a few times less than the senders
// offer), and the bus's bound is BACKLOG records of a topic not yet read. Every acknowledged run is
// scored exactly once, the collector answered 429, the process's RSS stays under RSS_BOUND_MB, and a
// run sent after the drain is scored within a second again within RECOVERY_BOUND_MS.

const BURST_MS = 20_000;
const SENDERS = 12;
const TRACES_PER_REQUEST = 50;
const BACKLOG = 3_000;
const HOLD_OPEN = 10;
const RSS_BOUND_MB = 800;
const DRAIN_BOUND_MS = 90_000;
const RECOVERY_BOUND_MS = 30_000;

/** This test is of the bound in records: the bound in time (TRACECHECK_MAX_LAG_MS) is set out of its way. */
const RECORDS_BOUND_ONLY = { TRACECHECK_MAX_LAG_MS: String(3_600_000) };

describe('a burst on embedded tracecheck up', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-burst-'));
  let up: EmbeddedUp | undefined;
  afterAll(async () => {
    await up?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pushes back during the burst, scores every acknowledged run once, stays bounded, and is back to sub-second scoring', { timeout: 240_000 }, async () => {
    up = await startEmbeddedUp(dataDir, await embeddedPorts(), { TRACECHECK_CHECKS: 'function_result_present', TRACECHECK_BACKLOG_MAX_RECORDS: String(BACKLOG), TRACECHECK_ASSEMBLER_HOLD_OPEN_TRACES: String(HOLD_OPEN), ...RECORDS_BOUND_ONLY });
    const running = up;
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, running.rssMb())), 500);
    try {
      const burstEnd = Date.now() + BURST_MS;
      const sent = await sendWithRetries({ url: running.collectorUrl, senders: SENDERS, more: () => Date.now() < burstEnd, makeExport: () => genAiRunsProtobuf(TRACES_PER_REQUEST) });
      const sentAt = Date.now();
      await waitFor(async () => (await scoredTotal(running.apiUrl)) >= sent.acknowledged.length || undefined, { timeoutMs: DRAIN_BOUND_MS, intervalMs: 2_000, description: 'every acknowledged run scored' });
      const drainMs = Date.now() - sentAt;
      const recovery = await probeUntilSubSecond(running, Date.now(), RECOVERY_BOUND_MS, () => genAiRunsExport(1));
      const counts = await embeddedCounts(running.apiUrl);
      const expected = [...sent.acknowledged, ...recovery.probeIds];
      report('embedded burst', { spansAcknowledged: sent.acknowledged.length * SPANS_PER_RUN, refused429: sent.refused429, refused503: sent.refused503, drainMs, upMaxRssMb: Math.round(maxRss), subSecondAfterDrainMs: recovery.subSecondAfterMs, probeMs: recovery.probeMs });
      expect(sent.refused429).toBeGreaterThan(0);
      expect(sent.refused503).toBe(0);
      // Exactly once: one score (one check) and one 10-span unit per acknowledged run, nothing else.
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
