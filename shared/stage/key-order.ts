/**
 * Turns per key: work of one key runs one after another, in the order its turns were taken;
 * different keys run side by side. A key's entry is dropped once its last turn ended.
 */
export function createKeyOrder() {
  const chains = new Map<string, Promise<void>>();
  return {
    /** `ready` resolves when every earlier turn of `key` ended; `end` ends this one. */
    turn(key: string): { ready: Promise<void>; end: () => void } {
      const ready = chains.get(key) ?? Promise.resolve();
      let end: () => void = () => undefined;
      const mine = new Promise<void>((resolve) => (end = resolve));
      chains.set(key, mine);
      void mine.then(() => {
        if (chains.get(key) === mine) chains.delete(key);
      });
      return { ready, end };
    },
    size: (): number => chains.size,
  };
}
