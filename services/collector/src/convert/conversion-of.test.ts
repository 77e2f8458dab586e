import { describe, expect, it } from 'vitest';
import { conversionOf } from './conversion-of.ts';
import type { ConvertOutcome } from './convert-export.ts';

/** A worker's outcome for `values`, as convertExport packs it (one UTF-8 buffer and the records' ends). */
function outcomeOf(values: string[], whole: boolean[]): Extract<ConvertOutcome, { kind: 'converted' }> {
  const text = Buffer.from(values.join(''));
  const ends = new Uint32Array(values.length);
  let end = 0;
  values.forEach((v, i) => (ends[i] = end += Buffer.byteLength(v)));
  return { kind: 'converted', received: values.length, keys: values.map((_, i) => `k${i}`), text, ends, whole, rejected: 0, errorMessage: '', redactions: {} };
}

describe('conversionOf', () => {
  it('gives back each record whole, UTF-8 included, parsed only when it was checked whole', async () => {
    const values = ['{"a":"é✓"}', '{"b":[1,2]}', '{"c":"cut"}'];
    const c = await conversionOf(outcomeOf(values, [true, true, false]), true);
    expect(c.messages).toEqual([
      { key: 'k0', value: values[0], parsed: { a: 'é✓' } },
      { key: 'k1', value: values[1], parsed: { b: [1, 2] } },
      { key: 'k2', value: values[2] },
    ]);
    expect((await conversionOf(outcomeOf(values, [true, true, true]), false)).messages.map((m) => m.parsed)).toEqual([undefined, undefined, undefined]);
  });

  it('lets the event loop run while a large export is decoded and parsed', async () => {
    const values = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, text: 'x'.repeat(100) }));
    let ran = false;
    // With slices of 0 ms, every record is due to yield: other work runs before the parse ends.
    const converting = conversionOf(outcomeOf(values, values.map(() => true)), true, 0);
    setImmediate(() => (ran = true));
    const c = await converting;
    expect(ran).toBe(true);
    expect(c.messages.length).toBe(200);
  });
});
