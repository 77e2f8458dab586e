import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from './contract.ts';
import { planBatches, recordBytes, requestBudget, sendSized } from './sized-send.ts';

const record = (key: string, bytes: number): OutgoingMessage => ({ key, value: 'x'.repeat(bytes) });

describe('planBatches', () => {
  it('fills each batch up to the byte budget, in order, and sets apart a record that alone exceeds it', () => {
    const rs = [record('a', 400), record('b', 400), record('c', 5_000), record('d', 400)];
    const budget = recordBytes(rs[0]) * 2;
    const { batches, oversized } = planBatches(rs, budget);
    expect(batches.map((b) => b.map((m) => m.key))).toEqual([['a', 'b'], ['d']]);
    expect(oversized.map((m) => m.key)).toEqual(['c']);
  });

  it('counts headers and UTF-8 bytes', () => {
    expect(recordBytes({ key: 'k', value: 'é' })).toBe(64 + 1 + 2);
    expect(recordBytes({ key: 'k', value: '', headers: { ab: 'cd' } })).toBe(64 + 1 + 8 + 4);
    expect(requestBudget(65_536)).toBe(64_512);
  });
});

describe('sendSized', () => {
  const tooLarge = Object.assign(new Error('The request included a message larger than the max message size the server will accept'), { type: 'MESSAGE_TOO_LARGE' });

  it('splits a refused batch in halves until it fits, and dead-letters once a record refused alone; the number of requests is bounded', async () => {
    // The "broker" takes at most 2 records per request and never record 'c'.
    const sent: string[][] = [];
    const dead: Array<[string, string]> = [];
    let requests = 0;
    await sendSized(['a', 'b', 'c', 'd', 'e'].map((k) => record(k, 10)), {
      send: (batch) => {
        requests++;
        if (batch.length > 2 || batch.some((m) => m.key === 'c')) return Promise.reject(tooLarge);
        sent.push(batch.map((m) => m.key));
        return Promise.resolve();
      },
      isTooLarge: (err) => err === tooLarge,
      oversized: (m, reason) => Promise.resolve(void dead.push([m.key, reason])),
      budgetBytes: 100_000,
      limitBytes: 101_024,
      kind: 'unit',
    });
    expect(sent).toEqual([['a', 'b'], ['d', 'e']]);
    expect(dead).toEqual([['c', 'unit "c" is oversized: 75 bytes encoded, over the 101024-byte limit of the broker, topic or client; it can never be sent (the broker refused it alone)']]);
    // [a..e] → [a,b,c] → [a,b] ✓, [c] ✗ → [d,e] ✓
    expect(requests).toBe(5);
  });

  it('dead-letters a record over the budget without sending it, and rejects at once on any other failure', async () => {
    const dead: string[] = [];
    const sent: string[] = [];
    await sendSized([record('big', 500), record('ok', 10)], {
      send: (batch) => Promise.resolve(void sent.push(...batch.map((m) => m.key))),
      isTooLarge: () => false,
      oversized: (m, reason) => Promise.resolve(void dead.push(`${m.key}: ${reason}`)),
      budgetBytes: 200,
      limitBytes: 1_224,
    });
    expect(sent).toEqual(['ok']);
    expect(dead).toEqual(['big: record "big" is oversized: 567 bytes encoded, over the 1224-byte limit of the broker, topic or client; it can never be sent']);
    const down = new Error('connection refused');
    let requests = 0;
    await expect(
      sendSized([record('a', 10), record('b', 10)], {
        send: () => (requests++, Promise.reject(down)),
        isTooLarge: () => false,
        oversized: () => Promise.resolve(),
        budgetBytes: 100_000,
        limitBytes: 101_024,
      }),
    ).rejects.toBe(down);
    expect(requests).toBe(1);
  });

  it('isolates a record the broker refuses for what it is (INVALID_RECORD) and dead-letters it once with the broker\'s reason; the rest is sent', async () => {
    // As kafkajs rejects a produce to a compacted topic of a record without a key.
    const invalid = Object.assign(new Error('This record has failed the validation on broker and hence be rejected'), { type: 'INVALID_RECORD' });
    const sent: string[][] = [];
    const refused: Array<[string, string]> = [];
    let requests = 0;
    await sendSized(['a', 'b', 'c', 'd'].map((k) => record(k, 10)), {
      send: (batch) => {
        requests++;
        if (batch.some((m) => m.key === 'b')) return Promise.reject(invalid);
        sent.push(batch.map((m) => m.key));
        return Promise.resolve();
      },
      isTooLarge: () => false,
      oversized: () => Promise.reject(new Error('not too large')),
      isRecordRefused: (err) => err === invalid,
      refused: (m, reason) => Promise.resolve(void refused.push([m.key, reason])),
      budgetBytes: 100_000,
      limitBytes: 101_024,
      kind: 'score',
    });
    expect(sent).toEqual([['a'], ['c', 'd']]);
    expect(refused).toEqual([['b', 'score "b" was refused by the broker: This record has failed the validation on broker and hence be rejected; sent again it would be refused again']]);
    // [a..d] → [a,b] → [a] ✓, [b] ✗ → [c,d] ✓
    expect(requests).toBe(5);
  });
});
