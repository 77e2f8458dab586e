import type { Conversion } from './pipeline.ts';

export interface ProjectShareLimits {
  /** Traces without a root span one project may have open (TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES). */
  maxRootlessTraces: number;
  /** Bytes of their records (TRACECHECK_PROJECT_MAX_OPEN_BYTES). */
  maxRootlessBytes: number;
  /** The assembler closes a trace without a root this long after its first span at the latest (TRACECHECK_TRACE_MAX_OPEN_MS). */
  maxOpenMs: number;
}

/** One root-less trace as this collector sent it: when its first record went, and the bytes of its records since. */
interface Rootless {
  firstMs: number;
  bytes: number;
}

interface ProjectHeld {
  /** In the order they were first sent: the oldest first. */
  traces: Map<string, Rootless>;
  bytes: number;
  /**
   * Traces whose root (or entry span) passed, when it did, the oldest first: a record of one that
   * comes later (log records exported after the spans) re-opens it in the assembler with its root,
   * so it is not counted. Kept `maxOpenMs`, as the assembler keeps closed traces, and at most
   * ENDED_PER_SHARE × the share (past it the oldest are forgotten, and a late record of one counts).
   */
  ended: Map<string, number>;
}

const ENDED_PER_SHARE = 10;

export interface ProjectShares {
  /**
   * Admits an export's records of `project` (null), or says why it is refused: it would take the
   * project's root-less traces past its share. Admitted records are counted until their trace's
   * root (or entry span) comes, or until the assembler has closed it for want of one.
   */
  admit(project: string, conversion: Pick<Conversion, 'messages' | 'ends'>): string | null;
  /** Root-less traces of `project` counted now, and their bytes. */
  held(project: string): { traces: number; bytes: number };
}

/**
 * Each project's traces still waiting for a root span, as the records this collector sends make
 * them in the assembler: the collector's own count, so that it needs no signal from the assembler,
 * which may run in another process (Kafka mode). A trace leaves it when a record that can end it
 * passes (a root or an entry span, as the assembler tells them; later records of it do not count
 * it again), or `maxOpenMs` after its first record, by when the assembler has closed it. An export that would add to a project past its
 * share is refused whole (429 + Retry-After): its records never reach the bus, so they cannot
 * hold the assembler, or another project's traces behind it. Exports that add nothing to it (the
 * roots, more spans of traces counted already) always pass.
 */
export function createProjectShares(limits: ProjectShareLimits, now: () => number = Date.now): ProjectShares {
  const projects = new Map<string, ProjectHeld>();

  function expire(held: ProjectHeld, nowMs: number): void {
    for (const [traceId, t] of held.traces) {
      if (nowMs - t.firstMs < limits.maxOpenMs) break;
      held.traces.delete(traceId);
      held.bytes -= t.bytes;
    }
    for (const [traceId, endedMs] of held.ended) {
      if (nowMs - endedMs < limits.maxOpenMs && held.ended.size <= ENDED_PER_SHARE * limits.maxRootlessTraces) break;
      held.ended.delete(traceId);
    }
  }

  return {
    admit(project, conversion) {
      const nowMs = now();
      const held: ProjectHeld = projects.get(project) ?? { traces: new Map<string, Rootless>(), bytes: 0, ended: new Map<string, number>() };
      expire(held, nowMs);
      // Per trace of the export: whether a record of it can end it, and the bytes of its records.
      const inExport = new Map<string, { ends: boolean; bytes: number }>();
      conversion.messages.forEach((m, i) => {
        const traceId = m.key ?? '';
        const t = inExport.get(traceId) ?? { ends: false, bytes: 0 };
        t.ends ||= conversion.ends?.[i] ?? false;
        t.bytes += m.value.length;
        inExport.set(traceId, t);
      });
      let traces = held.traces.size;
      let bytes = held.bytes;
      let added = 0;
      let addedBytes = 0;
      for (const [traceId, t] of inExport) {
        const before = held.traces.get(traceId);
        if (t.ends) {
          if (before) [traces, bytes] = [traces - 1, bytes - before.bytes];
          continue;
        }
        if (held.ended.has(traceId)) continue;
        if (!before) [traces, added] = [traces + 1, added + 1];
        [bytes, addedBytes] = [bytes + t.bytes, addedBytes + t.bytes];
      }
      if (added > 0 && traces > limits.maxRootlessTraces) {
        return `project "${project}" is over its share of traces waiting for a root span: this export would make ${traces} (share ${limits.maxRootlessTraces}, TRACECHECK_PROJECT_MAX_ROOTLESS_TRACES); retry once roots arrive, or send each trace's root span`;
      }
      if (addedBytes > 0 && bytes > limits.maxRootlessBytes) {
        return `project "${project}" is over its share of bytes held for traces waiting for a root span: this export would make ${bytes} (share ${limits.maxRootlessBytes}, TRACECHECK_PROJECT_MAX_OPEN_BYTES); retry once roots arrive`;
      }
      for (const [traceId, t] of inExport) {
        const before = held.traces.get(traceId);
        if (t.ends) {
          held.traces.delete(traceId);
          held.ended.delete(traceId);
          held.ended.set(traceId, nowMs);
        } else if (held.ended.has(traceId)) continue;
        else if (before) before.bytes += t.bytes;
        else held.traces.set(traceId, { firstMs: nowMs, bytes: t.bytes });
      }
      held.bytes = bytes;
      expire(held, nowMs);
      if (held.traces.size === 0 && held.ended.size === 0) projects.delete(project);
      else projects.set(project, held);
      return null;
    },
    held(project) {
      const held = projects.get(project);
      if (held) expire(held, now());
      return { traces: held?.traces.size ?? 0, bytes: held?.bytes ?? 0 };
    },
  };
}
