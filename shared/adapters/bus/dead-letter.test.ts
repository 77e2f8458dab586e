import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../runtime/errors/index.ts';
import type { BusMessage, OutgoingMessage } from './contract.ts';
import { deadLetterRecord, deadLettersWritten, writeDeadLetters } from './dead-letter.ts';

const message = (topic: string, offset: string, value: string): BusMessage => ({ topic, partition: 1, offset, key: 'k', value, headers: { h: 'v' }, timestampMs: 0 });

describe('dead letters', () => {
  it('a dead-letter record keeps key, value and headers and adds why and where from, the error capped at 4,000 characters', () => {
    const record = deadLetterRecord(message('spans', '41', '{}'), new PermanentError('x'.repeat(5_000)));
    expect(record).toEqual({
      key: 'k',
      value: '{}',
      headers: { h: 'v', error: 'x'.repeat(4_000), 'error-name': 'PermanentError', 'original-topic': 'spans', 'original-partition': '1', 'original-offset': '41' },
    });
  });

  it('writes each record to its own topic\'s dead-letter topic, one send per topic, and rejects with a failed send', async () => {
    const sent: Array<[string, OutgoingMessage[]]> = [];
    const send = (topic: string, records: readonly OutgoingMessage[]): Promise<void> => {
      sent.push([topic, [...records]]);
      return Promise.resolve();
    };
    const err = new Error('bad');
    const messages = [message('spans', '1', 'a'), message('units', '2', 'b'), message('spans', '3', 'c')];
    await writeDeadLetters(send, messages, err);
    expect(sent).toEqual([
      ['spans.dlq', [deadLetterRecord(messages[0], err), deadLetterRecord(messages[2], err)]],
      ['units.dlq', [deadLetterRecord(messages[1], err)]],
    ]);
    await expect(writeDeadLetters(() => Promise.reject(new Error('topic full')), messages, err)).rejects.toThrow('topic full');
  });

  it('counts what landed per origin topic for /metrics, and nothing of a send that failed', async () => {
    const before = (topic: string): number => deadLettersWritten().get(topic) ?? 0;
    const [spans, units] = [before('count-spans'), before('count-units')];
    await writeDeadLetters(() => Promise.resolve(), [message('count-spans', '1', 'a'), message('count-spans', '2', 'b'), message('count-units', '3', 'c')], new Error('bad'));
    await expect(writeDeadLetters(() => Promise.reject(new Error('broker down')), [message('count-units', '4', 'd')], new Error('bad'))).rejects.toThrow('broker down');
    expect([before('count-spans') - spans, before('count-units') - units]).toEqual([2, 1]);
  });
});
