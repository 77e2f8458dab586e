/**
 * Long synchronous work cut into slices with a yield to the event loop between them, so other
 * requests (the collector's, the API's) wait at most one slice. A slice is measured in time, not
 * steps: steps differ in cost by orders of magnitude (a span, a 10,000-span trace).
 */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface TimeSlicer {
  /** True once the current slice has run `sliceMs` or longer. */
  due(): boolean;
  /** When the slice is due: yields to the event loop and starts a new slice. Else resolves at once. */
  pause(): Promise<void>;
  /** Starts a new slice (the caller waited on something else, which let other work run). */
  restart(): void;
}

export function createTimeSlicer(sliceMs: number, now: () => number = () => performance.now()): TimeSlicer {
  let sliceStart = now();
  const due = (): boolean => now() - sliceStart >= sliceMs;
  return {
    due,
    async pause() {
      if (!due()) return;
      await yieldToEventLoop();
      sliceStart = now();
    },
    restart() {
      sliceStart = now();
    },
  };
}

/**
 * Runs a generator's steps to its result with a yield to the event loop after every `sliceMs` of
 * work. The steps and their order are those of `runAtOnce`: only the time between them differs.
 */
export async function runInSlices<T>(steps: Iterator<void, T>, sliceMs: number, now?: () => number): Promise<T> {
  const slicer = createTimeSlicer(sliceMs, now);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    // Checked without awaiting: a step that is not due costs no microtask.
    if (slicer.due()) await slicer.pause();
  }
}

/** Runs a generator's steps to its result in one synchronous pass. */
export function runAtOnce<T>(steps: Iterator<void, T>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}
