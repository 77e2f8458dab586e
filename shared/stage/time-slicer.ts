/** Work between two yields to the event loop: other requests wait no longer. */
const YIELD_AFTER_MS = 20;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `pause()` yields to the event loop once YIELD_AFTER_MS of work went by since the last yield. */
export function createTimeSlicer(sliceMs = YIELD_AFTER_MS) {
  let sliceStart = performance.now();
  return {
    async pause(): Promise<void> {
      if (performance.now() - sliceStart < sliceMs) return;
      await yieldToEventLoop();
      sliceStart = performance.now();
    },
  };
}
