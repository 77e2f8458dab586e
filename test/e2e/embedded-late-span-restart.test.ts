import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPorts, startEmbeddedUp, type EmbeddedUp } from '../helpers/embedded-up.ts';
import { waitFor } from '../helpers/infra.ts';
import { largeTraceExport } from '../helpers/large-trace-export.ts';

// The known gap this closes (docs/guarantees.md, Completeness): a trace's spans in two exports,
// the second reaching `tracecheck up` after a SIGKILL and a restart on the same data dir, once the
// first part was published. The assembler reads back the span records below its commit at start,
// so the late spans re-open the trace whole: its latest revision has every span.
// bin/tracecheck.mjs runs the build (dist/): run `npm run build` first.

const TRACE = '5'.repeat(32);

describe('embedded mode: a late span after a SIGKILL and a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracecheck-late-span-'));
  let current: EmbeddedUp | null = null;
  afterAll(async () => {
    await current?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('re-opens the trace published before the kill whole: the latest revision has all 5 spans', async () => {
    const ports = await embeddedPorts();
    const env = { TRACECHECK_TRACE_GRACE_MS: '300', TRACECHECK_CHECKS: 'function_result_present' };
    const post = async (body: string): Promise<void> => {
      const res = await fetch(`${current!.collectorUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await res.text();
      expect(res.status, text).toBe(200);
    };
    const revisions = async (): Promise<number[] | undefined> => {
      const res = await fetch(`${current!.apiUrl}/api/v1/units/${TRACE}/revisions`);
      if (res.status !== 200) return undefined;
      return ((await res.json()) as { revisions: Array<{ span_count: number }> }).revisions.map((r) => r.span_count);
    };

    current = await startEmbeddedUp(dataDir, ports, env);
    // Part 1: the root (span 0) and two children; published and stored.
    await post(largeTraceExport(TRACE, 'wide', 0, 3));
    expect(await waitFor(revisions, { timeoutMs: 30_000, intervalMs: 100, description: 'the unit stored' })).toEqual([3]);
    // The bus writes its offsets every 200 ms: past part 1 by now (else part 1 is read again, whole).
    await sleep(1_000);
    await current.kill();

    current = await startEmbeddedUp(dataDir, ports, env);
    // Part 2: two more children of the same trace, as an exporter retrying across the restart sends them.
    await post(largeTraceExport(TRACE, 'wide', 3, 5));
    const stored = await waitFor(async () => ((await revisions())?.length === 2 ? revisions() : undefined), { timeoutMs: 30_000, intervalMs: 100, description: 'a second revision' });
    expect(stored).toEqual([3, 5]);
  }, 120_000);
});
