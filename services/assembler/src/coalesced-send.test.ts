import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../../shared/adapters/bus/index.ts';
import { createCoalescedSend } from './coalesced-send.ts';

const msg = (key: string): OutgoingMessage => ({ key, value: key });

/** A send that resolves or rejects only when the test says so, recording each batch's keys. */
function gatedSend() {
  const batches: string[][] = [];
  const gates: Array<{ ok: () => void; fail: (err: Error) => void }> = [];
  const send = (messages: OutgoingMessage[]) =>
    new Promise<void>((ok, fail) => {
      batches.push(messages.map((m) => m.key));
      gates.push({ ok, fail });
    });
  return { send, batches, gates };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('createCoalescedSend', () => {
  it('sends the first record at once and what came in meanwhile together in the next send, settling each with its batch', async () => {
    const g = gatedSend();
    const send = createCoalescedSend(g.send);
    const settled: string[] = [];
    const track = (key: string) => send(msg(key)).then(() => void settled.push(key));
    const all = ['a', 'b', 'c', 'd'].map(track);
    await tick();
    expect(g.batches).toEqual([['a']]);
    g.gates[0].ok();
    await tick();
    expect(settled).toEqual(['a']);
    expect(g.batches).toEqual([['a'], ['b', 'c', 'd']]);
    g.gates[1].ok();
    await Promise.all(all);
    expect(settled).toEqual(['a', 'b', 'c', 'd']);
    // Idle again: the next record goes at once, alone.
    const next = track('e');
    await tick();
    expect(g.batches).toEqual([['a'], ['b', 'c', 'd'], ['e']]);
    g.gates[2].ok();
    await next;
  });

  it('rejects every record of a failed batch with its error and goes on with the next batch', async () => {
    const g = gatedSend();
    const send = createCoalescedSend(g.send);
    const a = send(msg('a'));
    const b = send(msg('b'));
    const c = send(msg('c'));
    await tick();
    g.gates[0].ok();
    await a;
    await tick();
    expect(g.batches).toEqual([['a'], ['b', 'c']]);
    const broker = new Error('broker gone');
    g.gates[1].fail(broker);
    await expect(b).rejects.toBe(broker);
    await expect(c).rejects.toBe(broker);
    const d = send(msg('d'));
    await tick();
    expect(g.batches).toEqual([['a'], ['b', 'c'], ['d']]);
    g.gates[2].ok();
    await d;
  });

  it('sends at most maxBatch records at once', async () => {
    const g = gatedSend();
    const send = createCoalescedSend(g.send, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((k) => send(msg(k)));
    for (let i = 0; i < 3; i++) {
      await tick();
      g.gates[i].ok();
    }
    await Promise.all(all);
    expect(g.batches).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });
});
