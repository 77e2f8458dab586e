import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInMemoryBus, type Bus, type InMemoryBusOptions } from '../../../shared/adapters/bus/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { runLateSpanRestart } from './late-span-restart.ts';

// The embedded mode's bus: in process, its log and offsets on a data dir, closed and reopened
// between the two assemblers as a restarted `tracecheck up` reopens it.
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function onDisk(): { open(): Bus; close(bus: Bus): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'tracecheck-late-span-'));
  dirs.push(dir);
  const options: InMemoryBusOptions = { log: createSilentLogger(), partitions: 3, retryBackoff: { initialDelayMs: 10, maxDelayMs: 50 }, durable: { dir, offsetFlushMs: 20 } };
  const opened = new Map<Bus, ReturnType<typeof createInMemoryBus>>();
  return {
    open: () => {
      const bus = createInMemoryBus(options);
      opened.set(bus, bus);
      return bus;
    },
    close: (bus) => opened.get(bus)!.close(),
  };
}

describe('a late span across an assembler restart, in-process bus on disk', () => {
  it('re-opens the trace published before the restart whole: the latest unit has every span', async () => {
    expect(await runLateSpanRestart({ ...onDisk(), replayRecords: 1_000, waitTimeoutMs: 20_000 })).toEqual([3, 5]);
  });

  it('without the replay (TRACECHECK_TRACE_REPLAY_RECORDS=0), the latest unit holds the late spans only', async () => {
    // Rootless without part 1, they close after the max open time.
    expect(await runLateSpanRestart({ ...onDisk(), replayRecords: 0, maxOpenMs: 2_000, waitTimeoutMs: 20_000 })).toEqual([3, 2]);
  });
});
