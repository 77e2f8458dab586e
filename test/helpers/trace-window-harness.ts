import { runAtOnce } from '../../shared/runtime/flow/index.ts';
import type { SpanEnvelope } from '../../shared/contracts/schemas/index.ts';
import { guardWindow } from '../../shared/kit/stage/index.ts';
import type { TraceParts } from '../../services/assembler/src/assemble-trace.ts';
import { createTraceWindow, type TraceWindowOptions } from '../../services/assembler/src/trace-window.ts';

/**
 * A trace window run through the kit's commit guard, driven the way the window stage drives it,
 * for tests, the fuzz test and benchmarks: records go in with their partition and offset, and
 * `lowWaterMark` says what would be committed.
 */
export function createTraceWindowHarness(options: TraceWindowOptions) {
  const window = createTraceWindow(options);
  const guarded = guardWindow(window);
  const take = (nowMs: number, force = false) => guarded.takeReady(nowMs, force);
  return {
    add: (envelope: SpanEnvelope, partition: number, offset: bigint, nowMs: number): string | null => guarded.add(envelope, { partition, offset }, nowMs),
    /** Records replayed by the bus after a restart, read at `offsets` of `partition` (Window.restore). */
    restore: (envelopes: readonly SpanEnvelope[], partition: number, offsets: readonly bigint[], nowMs: number): void =>
      guarded.restore!(envelopes, offsets.map((offset) => ({ partition, offset })), nowMs),
    /** Ready traces, unpacked at once, with the key confirm and release take (the trace id in the project `default`). */
    takeReady: (nowMs: number, force = false): Array<TraceParts & { key: string; reason: string }> => take(nowMs, force).map((t) => ({ ...runAtOnce(t.load), key: t.key, reason: t.reason })),
    takeReadyInSteps: (nowMs: number, force = false) => take(nowMs, force).map((t) => ({ traceId: t.key, reason: t.reason, parts: t.load })),
    /** As the stage confirms: a trace that got a record since it was taken stays open. */
    confirm: (key: string, nowMs: number): boolean => guarded.confirm(key, nowMs),
    release: (key: string): void => guarded.release(key),
    lowWaterMark: (partition: number): bigint | null => guarded.lowWaterMark(partition),
    openCount: (): number => window.openCount(),
    refused: (traceIds: string[], nowMs: number, project?: string): void => window.refused(project, traceIds, nowMs),
    closedCount: (): number => window.closedCount(),
    openBytes: (): number => window.openBytes(),
    rootlessCount: (): number => window.rootlessCount(),
    /** What one project's open traces hold: their number, those without a root, their bytes. */
    projectHeld: (project: string) => ({ open: window.projectOpenCount(project), rootless: window.rootlessCount(project), bytes: window.openBytes(project) }),
    originOf: (record: object) => {
      const at = window.positionOf(record);
      return at && { partition: at.partition, offset: String(at.offset) };
    },
  };
}
