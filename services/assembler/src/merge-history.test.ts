import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import { appendDeduplicated, restoreCallTurns, unifyItemIds } from './merge-history.ts';

const user: ChatMessage = { role: 'user', content: 'Weather in Paris?' };
const callBy = (id: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
const resultFor = (id: string): ChatMessage => ({ role: 'tool', content: 'sunny', tool_call_id: id });

describe('Responses item ids', () => {
  it('gives a call named by its item id the call id of the result that answers it', () => {
    expect(unifyItemIds([user, callBy('fc_1'), resultFor('call_9')])).toEqual([user, callBy('call_9'), resultFor('call_9')]);
  });

  it('merges a history that names the call by item id with an output that used the call id, keeping the call id', () => {
    const first = [user, callBy('call_9')];
    const second = unifyItemIds([user, callBy('fc_1'), resultFor('call_9'), { role: 'assistant', content: 'Sunny.' }]);
    expect(appendDeduplicated(first, second)).toEqual([user, callBy('call_9'), resultFor('call_9'), { role: 'assistant', content: 'Sunny.' }]);
    expect(appendDeduplicated([user, callBy('fc_1')], [user, callBy('call_9'), resultFor('call_9')])).toEqual([user, callBy('call_9'), resultFor('call_9')]);
  });

  it('keeps two different call ids apart', () => {
    expect(appendDeduplicated([user, callBy('call_1'), resultFor('call_1')], [user, callBy('call_2'), resultFor('call_2')])).toEqual([
      user,
      callBy('call_1'),
      resultFor('call_1'),
      user,
      callBy('call_2'),
      resultFor('call_2'),
    ]);
  });
});

describe('histories that lost their tool turns', () => {
  const answer: ChatMessage = { role: 'assistant', content: 'Sunny.' };

  it('reads a re-sent history without any tool turns as the dialog with them left out (the Responses items a library dropped)', () => {
    expect(appendDeduplicated([user, callBy('call_1')], [user, callBy('call_2')])).toEqual([user, callBy('call_1'), callBy('call_2')]);
    expect(appendDeduplicated([user, callBy('call_1'), resultFor('call_1')], [user, answer])).toEqual([user, callBy('call_1'), resultFor('call_1'), answer]);
  });

  it('appends whole when the dialog does not end in tool turns, or the shared part differs', () => {
    expect(appendDeduplicated([user, answer], [user, answer, user])).toEqual([user, answer, user]);
    const other: ChatMessage = { role: 'user', content: 'Weather in Rome?' };
    expect(appendDeduplicated([user, callBy('call_1')], [other, answer])).toEqual([user, callBy('call_1'), other, answer]);
  });

  it('takes back an assistant call turn that a re-sent history dropped before its result, by call id', () => {
    const history = [user, callBy('call_1')];
    expect(restoreCallTurns([user, resultFor('call_1')], history)).toEqual([user, callBy('call_1'), resultFor('call_1')]);
    expect(restoreCallTurns([user, callBy('call_1'), resultFor('call_1')], history)).toEqual([user, callBy('call_1'), resultFor('call_1')]);
    // A loop: each result lost its own turn.
    const second = callBy('call_2');
    expect(restoreCallTurns([user, resultFor('call_1'), resultFor('call_2')], [...history, resultFor('call_1'), second])).toEqual([
      user,
      callBy('call_1'),
      resultFor('call_1'),
      second,
      resultFor('call_2'),
    ]);
    // A result after a turn that named its call by item id answers that turn.
    expect(restoreCallTurns([user, callBy('fc_1'), resultFor('call_1')], history)).toEqual([user, callBy('fc_1'), resultFor('call_1')]);
    // A result whose call the dialog does not know stays as it is.
    expect(restoreCallTurns([user, resultFor('call_7')], history)).toEqual([user, resultFor('call_7')]);
  });
});
