import { afterEach, describe, expect, it } from 'vitest';
import { createInMemoryBus, deadLetterTopic, type BusMessage } from '../../adapters/bus/index.ts';
import { PermanentError, RetriableError } from '../../runtime/errors/index.ts';
import type { Component } from '../../runtime/lifecycle/index.ts';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { waitFor } from '../../../test/helpers/infra.ts';
import { createRecordStage } from './record-stage.ts';

const log = createSilentLogger();

describe('record stage', () => {
  const running: Component[] = [];
  afterEach(async () => {
    for (const c of running.splice(0).reverse()) await c.shutdown();
  });
  const start = async <C extends Component>(c: C): Promise<C> => {
    running.push(c);
    await c.start();
    return c;
  };

  it('runs records of one key in order, other keys side by side, skips what it is told to, and dead-letters what is not a record', async () => {
    const bus = createInMemoryBus({ log, retryBackoff: { initialDelayMs: 5, maxDelayMs: 20 } });
    const done: string[] = [];
    const gates = new Map<string, () => void>();
    let failures = 0;
    const stage = createRecordStage<{ k: string; n: number }>(
      { name: 'test-stage', in: 'in', out: [], groupId: 'g' },
      {
        bus,
        log,
        parse: (value) => {
          const r = JSON.parse(value) as { k?: string; n: number };
          if (typeof r.k !== 'string') throw new PermanentError('no key');
          return { k: r.k, n: r.n };
        },
        skip: (r) => r.k === 'skip',
        keyOf: (r) => r.k,
        run: async (r) => {
          // a-1 waits until released, a-2 must wait for it; b-1 fails once and is retried.
          if (r.k === 'a' && r.n === 1) await new Promise<void>((resolve) => gates.set('a1', resolve));
          if (r.k === 'b' && failures++ === 0) throw new RetriableError('store away');
          done.push(`${r.k}-${r.n}`);
        },
      },
    );
    await start(stage);
    const dead: BusMessage[] = [];
    await start(bus.createConsumer({ topic: deadLetterTopic('in'), groupId: 'dead', handle: (m) => Promise.resolve(void dead.push(m)) }));
    const producer = await start(bus.createProducer());
    await producer.send(
      'in',
      [{ k: 'a', n: 1 }, { k: 'a', n: 2 }, { k: 'skip', n: 0 }, { n: 9 }, { k: 'b', n: 1 }].map((r) => ({ key: 'x', value: JSON.stringify(r) })),
    );
    await waitFor(() => done.includes('b-1') && gates.has('a1') && dead.length === 1, { timeoutMs: 5_000, intervalMs: 5, description: 'b done while a waits' });
    expect(done).toEqual(['b-1']);
    gates.get('a1')!();
    await waitFor(() => done.length === 3, { timeoutMs: 5_000, intervalMs: 5, description: 'a done' });
    expect(done).toEqual(['b-1', 'a-1', 'a-2']);
    expect(dead[0].headers.error).toBe('no key');
  });
});
