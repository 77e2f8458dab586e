import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../shared/schemas/index.ts';
import { appendDeduplicated, unifyItemIds } from './merge-history.ts';

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
    expect(appendDeduplicated([user, callBy('call_1')], [user, callBy('call_2')])).toHaveLength(4);
  });
});
