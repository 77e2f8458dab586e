import { describe, expect, it } from 'vitest';
import { FatalError } from '../errors/index.ts';
import { reportFatal, untilFatal } from './fatal.ts';

describe('fatal', () => {
  it('resolves every waiter with the first failure reported, also one that starts waiting later', async () => {
    const early = untilFatal();
    const cancelled = untilFatal();
    cancelled.cancel();
    const first = new FatalError('sending to units: not authorized');
    reportFatal(first);
    reportFatal(new FatalError('the same failure, seen again'));
    expect(await early.promise).toBe(first);
    expect(await untilFatal().promise).toBe(first);
  });
});
