/** Bounds the exports in flight across both receivers; beyond it the client is told to come back later. */
export interface Admission {
  /** A release function, or null when admitting `bytes` more would exceed a limit. */
  tryEnter(bytes: number): (() => void) | null;
}

export function createAdmission(maxRequests: number, maxBytes: number): Admission {
  let requests = 0;
  let bytes = 0;
  return {
    tryEnter(size) {
      // One request is always admitted when nothing else runs, whatever its declared size.
      if (requests >= maxRequests || (requests > 0 && bytes + size > maxBytes)) return null;
      requests++;
      bytes += size;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        requests--;
        bytes -= size;
      };
    },
  };
}
