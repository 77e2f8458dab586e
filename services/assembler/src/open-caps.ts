import { DEFAULT_OPEN_CAPS } from '../../../shared/runtime/config/defaults.ts';
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
}

export { DEFAULT_OPEN_CAPS };

export type CapReason = 'cap-open' | 'cap-bytes' | 'cap-rootless';

/**
 * What the open traces hold in all, kept as traces open, gain records and close, and which of them
 * to close now when that is past a cap.
 */
export function createOpenCaps(options: OpenCapsOptions) {
  const maxOpenTraces = options.maxOpenTraces ?? DEFAULT_OPEN_CAPS.maxOpenTraces;
  const maxOpenBytes = options.maxOpenBytes ?? DEFAULT_OPEN_CAPS.maxOpenBytes;
  const maxRootless = options.maxRootlessTraces ?? DEFAULT_OPEN_CAPS.maxRootlessTraces;
  let openBytes = 0;
  let rootless = 0;

  return {
    /** A trace opened (a re-opened one with the records it held when it closed). */
    opened(t: OpenTrace): void {
      openBytes += t.bytes;
      if (!t.rootSeen) rootless++;
    },
    /** A record went into an open trace that held `bytesBefore` and had `rootBefore`. */
    grew(t: OpenTrace, bytesBefore: number, rootBefore: boolean): void {
      openBytes += t.bytes - bytesBefore;
      if (!rootBefore && t.rootSeen) rootless--;
    },
    closed(t: OpenTrace): void {
      openBytes -= t.bytes;
      if (!t.rootSeen) rootless--;
    },
    /**
     * Past a cap, the oldest open traces (`open` runs in the order they opened), as they are, until
     * what stays open is within every cap. Traces in `taken` (taken already) count as gone.
     */
    overCaps(open: ReadonlyMap<string, OpenTrace>, taken: readonly OpenTrace[]): Array<{ trace: OpenTrace; reason: CapReason }> {
      let count = open.size;
      let bytes = openBytes;
      let noRoot = rootless;
      const leave = (t: OpenTrace): void => {
        count--;
        bytes -= t.bytes;
        if (!t.rootSeen) noRoot--;
      };
      for (const t of taken) leave(t);
      const over = (): CapReason | null =>
        count > maxOpenTraces ? 'cap-open' : bytes > maxOpenBytes ? 'cap-bytes' : noRoot > maxRootless ? 'cap-rootless' : null;
      const closing: Array<{ trace: OpenTrace; reason: CapReason }> = [];
      for (const t of open.values()) {
        const reason = over();
        if (!reason) break;
        // The root-less cap closes root-less traces only: a trace with its root is not the cause.
        if (t.emitting || (reason === 'cap-rootless' && t.rootSeen)) continue;
        closing.push({ trace: t, reason });
        leave(t);
      }
      return closing;
    },
    /** Packed bytes held by open traces, and how many of them have no root yet. */
    openBytes: (): number => openBytes,
    rootlessCount: (): number => rootless,
  };
}
