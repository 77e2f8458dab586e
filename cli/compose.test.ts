import { describe, expect, it } from 'vitest';
import type { Bus } from '../shared/adapters/bus/index.ts';
import { RetriableError } from '../shared/runtime/errors/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { withTopicCreationRace } from './compose.ts';

/** A bus whose ensureTopics fails with `failures` in turn, then succeeds. */
function busFailing(failures: Error[]): Bus & { calls: number } {
  const fake = {
    kind: 'kafka' as const,
    calls: 0,
    createProducer: () => {
      throw new Error('not used');
    },
    createConsumer: () => {
      throw new Error('not used');
    },
    ensureTopics: () => {
      const failure = failures[fake.calls++];
      return failure ? Promise.reject(failure) : Promise.resolve();
    },
  };
  return fake;
}

describe('topics created by services starting together', () => {
  it('tries again when the broker says a topic being created elsewhere is not there yet', async () => {
    const bus = busFailing([new RetriableError('creating topics t.spans: This server does not host this topic-partition')]);
    await withTopicCreationRace(bus, createSilentLogger()).ensureTopics(['t.spans']);
    expect(bus.calls).toBe(2);
  });

  it('throws any other failure at once', async () => {
    const bus = busFailing([new RetriableError('connecting to 127.0.0.1:1: ECONNREFUSED')]);
    await expect(withTopicCreationRace(bus, createSilentLogger()).ensureTopics(['t.spans'])).rejects.toThrow('ECONNREFUSED');
    expect(bus.calls).toBe(1);
  });
});
