import { DEFAULT_OPEN_CAPS, DEFAULT_PROJECT_SHARES } from '../../../shared/runtime/config/defaults.ts';
import type { OpenTrace } from './open-trace.ts';

export interface OpenCapsOptions {
  /**
   * Caps on what open traces hold, in number, in packed record bytes, and in traces without a
   * root (which otherwise wait maxOpenMs: 200,000 of them took RSS to 2.4 GB). Past one, the
   * oldest open traces close at once, assembled from the spans seen (reason `cap-*`, counted in
   * /metrics). Defaults DEFAULT_OPEN_CAPS.
   */
  maxOpenTraces?: number;
  maxOpenBytes?: number;
  maxRootlessTraces?: number;
  /**
   * The same caps for each project's traces (TRACECHECK_PROJECT_*), below the hold on reading: one
   * project's traces waiting for roots must never stop the assembler from reading the others'. Past
   * one, that project's oldest root-less traces close first, then its oldest (reason
   * `cap-project-*`). Defaults DEFAULT_PROJECT_SHARES.
   */
  projectShares?: { maxOpenTraces?: number; maxOpenBytes?: number; maxRootlessTraces?: number };
}

export { DEFAULT_OPEN_CAPS };

export type CapReason = 'cap-open' | 'cap-bytes' | 'cap-rootless' | 'cap-project-open' | 'cap-project-bytes' | 'cap-project-rootless';

/** What some open traces hold: their number, their packed bytes, how many have no root. */
interface Held {
  count: number;
  bytes: number;
  rootless: number;
}

const add = (h: Held, t: OpenTrace, sign: 1 | -1): void => {
  h.count += sign;
  h.bytes += sign * t.bytes;
  if (!t.rootSeen) h.rootless += sign;
};

/**
 * What the open traces hold, in all and per project, kept as traces open, gain records and close,
 * and which of them to close now when that is past a cap.
 */
export function createOpenCaps(options: OpenCapsOptions) {
  const maxOpenTraces = options.maxOpenTraces ?? DEFAULT_OPEN_CAPS.maxOpenTraces;
  const maxOpenBytes = options.maxOpenBytes ?? DEFAULT_OPEN_CAPS.maxOpenBytes;
  const maxRootless = options.maxRootlessTraces ?? DEFAULT_OPEN_CAPS.maxRootlessTraces;
  const share = { ...DEFAULT_PROJECT_SHARES, ...options.projectShares };
  const total: Held = { count: 0, bytes: 0, rootless: 0 };
  const perProject = new Map<string, Held>();

  const projectOf = (t: OpenTrace): Held => {
    let h = perProject.get(t.project);
    if (!h) perProject.set(t.project, (h = { count: 0, bytes: 0, rootless: 0 }));
    return h;
  };

  const overShare = (h: Held): CapReason | null =>
    h.rootless > share.maxRootlessTraces ? 'cap-project-rootless' : h.count > share.maxOpenTraces ? 'cap-project-open' : h.bytes > share.maxOpenBytes ? 'cap-project-bytes' : null;
  const overTotal = (h: Held): CapReason | null =>
    h.count > maxOpenTraces ? 'cap-open' : h.bytes > maxOpenBytes ? 'cap-bytes' : h.rootless > maxRootless ? 'cap-rootless' : null;

  return {
    /** A trace opened (a re-opened one with the records it held when it closed). */
    opened(t: OpenTrace): void {
      add(total, t, 1);
      add(projectOf(t), t, 1);
    },
    /** A record went into an open trace that held `bytesBefore` and had `rootBefore`. */
    grew(t: OpenTrace, bytesBefore: number, rootBefore: boolean): void {
      const mine = projectOf(t);
      for (const h of [total, mine]) {
        h.bytes += t.bytes - bytesBefore;
        if (!rootBefore && t.rootSeen) h.rootless--;
      }
    },
    closed(t: OpenTrace): void {
      add(total, t, -1);
      const mine = projectOf(t);
      add(mine, t, -1);
      if (mine.count === 0) perProject.delete(t.project);
    },
    /**
     * Past a project's share, that project's oldest root-less traces, then its oldest; past a cap
     * on all, the oldest open traces; each as it is, until what stays open is within every share
     * and cap (`open` runs in the order they opened). Traces in `taken` (taken already) count as gone.
     */
    overCaps(open: ReadonlyMap<string, OpenTrace>, taken: readonly OpenTrace[]): Array<{ trace: OpenTrace; reason: CapReason }> {
      const left: Held = { ...total };
      const leftOf = new Map<string, Held>();
      for (const [project, h] of perProject) if (overShare(h)) leftOf.set(project, { ...h });
      const closing: Array<{ trace: OpenTrace; reason: CapReason }> = [];
      const gone = new Set<OpenTrace>(taken);
      const leave = (t: OpenTrace, reason?: CapReason): void => {
        add(left, t, -1);
        const mine = leftOf.get(t.project);
        if (mine) add(mine, t, -1);
        gone.add(t);
        if (reason) closing.push({ trace: t, reason });
      };
      for (const t of taken) leave(t);
      // Root-less traces first: they are what waits longest, and a project's flood of them is its own.
      for (const rootlessOnly of [true, false]) {
        for (const t of leftOf.size > 0 ? open.values() : []) {
          const mine = leftOf.get(t.project);
          if (!mine || gone.has(t) || t.emitting || (rootlessOnly && t.rootSeen)) continue;
          const reason = overShare(mine);
          if (!reason) {
            leftOf.delete(t.project);
            continue;
          }
          // The root-less share closes root-less traces only: a trace with its root is not the cause.
          if (reason === 'cap-project-rootless' && t.rootSeen) continue;
          leave(t, reason);
        }
      }
      for (const t of open.values()) {
        const reason = overTotal(left);
        if (!reason) break;
        if (gone.has(t) || t.emitting || (reason === 'cap-rootless' && t.rootSeen)) continue;
        leave(t, reason);
      }
      return closing;
    },
    /** Packed bytes held by open traces, and how many of them have no root yet; per project when named. */
    openBytes: (project?: string): number => (project === undefined ? total.bytes : (perProject.get(project)?.bytes ?? 0)),
    rootlessCount: (project?: string): number => (project === undefined ? total.rootless : (perProject.get(project)?.rootless ?? 0)),
    openCount: (project: string): number => perProject.get(project)?.count ?? 0,
  };
}
