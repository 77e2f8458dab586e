import { describe, expect, it } from 'vitest';
import type { ChatMessage, Unit } from '../../../shared/contracts/schemas/index.ts';
import { assembleSession, sessionUnitId } from './assemble-session.ts';
import { runAtOnce } from '../../../shared/runtime/flow/index.ts';
import { createSessionWindow } from './session-window.ts';

const sys: ChatMessage = { role: 'system', content: 'You are a booking agent.' };
const turns: ChatMessage[][] = [
  [{ role: 'user', content: 'A table for two?' }, { role: 'assistant', content: 'Which day?' }],
  [{ role: 'user', content: 'Friday.' }, { role: 'assistant', content: 'Booked for Friday.' }],
  [{ role: 'user', content: 'Thanks!' }, { role: 'assistant', content: 'You are welcome.' }],
  [{ role: 'user', content: 'Make it three people.' }, { role: 'assistant', content: 'Changed to three.' }],
];

/** Trace i re-sends the whole history before its own turn, as chat backends do. */
function trace(i: number, extra: Partial<Unit> = {}): Unit {
  const history = [sys, ...turns.slice(0, i + 1).flat()];
  return {
    schema_version: 1, unit_id: `t${i}`, kind: 'trace', trace_ids: [`t${i}`], agent_name: 'booker', agent_version: i < 3 ? 'v1' : 'v2', service: 'svc', environment: 'prod',
    conversation_id: 'c1', model: 'm', model_input: history.slice(0, -1), model_output: turns[i][1].content, message_history: history, tool_calls: [], tools: [],
    scenario_input: null, scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 10, output_tokens: 2 }, errors: [],
    truncated: false, span_count: 2, start_time_ms: 1_000 * i, end_time_ms: 1_000 * i + 500, assembled_at_ms: 0, ...extra,
  };
}

describe('session units', () => {
  it('holds every trace of a conversation once, in order, whatever order the traces came in', () => {
    const s = assembleSession(null, [trace(2), trace(0), trace(1)], 'c1', 9);
    expect(s.unit_id).toBe('session:c1');
    expect(s.kind).toBe('session');
    expect(s.trace_ids).toEqual(['t0', 't1', 't2']);
    expect(s.message_history).toEqual([sys, ...turns.slice(0, 3).flat()]);
    expect(s.model_output).toBe('You are welcome.');
    expect(s.usage).toEqual({ input_tokens: 30, output_tokens: 6 });
    expect([s.start_time_ms, s.end_time_ms, s.span_count]).toEqual([0, 2_500, 6]);
  });

  it('lists a call that a later trace re-sends once, and keeps apart position-made ids of different calls', () => {
    const call = (id: string, args: string, result: string | null, error: string | null = null) => ({ id, name: 'lookup', arguments: args, result, error });
    const first = trace(0, { tool_calls: [call('call_a', '{"d":"fri"}', 'free', 'slow')] });
    const second = trace(1, { tool_calls: [call('call_a', '{ "d": "fri" }', 'free'), call('call_b', '{"d":"sat"}', 'full'), call('call_0_1', '{"d":"sun"}', 'x')] });
    const third = trace(2, { tool_calls: [call('call_0_1', '{"d":"mon"}', 'y')] });
    expect(assembleSession(null, [first, second, third], 'c1', 0).tool_calls).toEqual([
      call('call_a', '{"d":"fri"}', 'free', 'slow'),
      call('call_b', '{"d":"sat"}', 'full'),
      call('call_0_1', '{"d":"sun"}', 'x'),
      call('call_0_1', '{"d":"mon"}', 'y'),
    ]);
  });

  it('orders turns that started in the same millisecond by the history they re-send', () => {
    const s = assembleSession(null, [trace(2, { start_time_ms: 7 }), trace(1, { start_time_ms: 7 }), trace(0, { start_time_ms: 7 })], 'c1', 9);
    expect(s.trace_ids).toEqual(['t0', 't1', 't2']);
    expect(s.message_history).toEqual([sys, ...turns.slice(0, 3).flat()]);
  });

  it('a later trace re-opens the published session: the dialog continues, the latest version answers', () => {
    const first = assembleSession(null, [trace(0), trace(1), trace(2)], 'c1', 9);
    const again = assembleSession(first, [trace(3), trace(2)], 'c1', 10);
    expect(again.trace_ids).toEqual(['t0', 't1', 't2', 't3']);
    expect(again.message_history).toEqual([sys, ...turns.flat()]);
    expect(again.agent_version).toBe('v2');
  });

  it('keeps projects apart in the id', () => {
    expect(sessionUnitId(undefined, 'c1')).toBe('session:c1');
    expect(sessionUnitId('shop', 'c1')).toBe('session:shop:c1');
  });

  it("a default-project conversation named 'alpha:c' does not take project alpha's session unit id", () => {
    expect(sessionUnitId('alpha', 'c')).toBe('session:alpha:c');
    expect(sessionUnitId(undefined, 'alpha:c')).toBe('session:default:alpha:c');
    expect(sessionUnitId('default', 'alpha:c')).toBe('session:default:alpha:c');
    expect(assembleSession(null, [trace(0, { conversation_id: 'alpha:c' })], 'alpha:c', 9).unit_id).toBe('session:default:alpha:c');
  });

  it('no two (project, conversation) pairs share a session unit id', () => {
    const projects = [undefined, 'default', 'alpha', 'alpha:c', 'a', 'a:b', 'default:x', 'a%3Ab', ''];
    const conversations = ['c', 'alpha:c', 'b:c', 'c:', ':c', 'default:alpha:c', 'x', 'default'];
    const seen = new Map<string, string>();
    for (const p of projects) {
      for (const c of conversations) {
        const id = sessionUnitId(p, c);
        const who = JSON.stringify([p === 'default' ? undefined : p, c]);
        expect(seen.get(id) ?? who).toBe(who);
        seen.set(id, who);
      }
    }
    expect(seen.size).toBe((projects.length - 1) * conversations.length);
  });

  it('closes after the idle time or at the end marker, and comes back with the session published before', () => {
    const b = createSessionWindow({ idleMs: 1_000 });
    const at = { partition: 0, offset: 0n };
    const take = (nowMs: number) => b.takeReady(nowMs, false).map((t) => ({ key: t.key, reason: t.reason, ...runAtOnce(t.load) }));
    b.add({ unit: trace(0), previous: null }, at, 0);
    b.add({ unit: trace(1), previous: null }, at, 500);
    expect(take(1_400)).toEqual([]);
    const [ready] = take(1_500);
    expect(ready.reason).toBe('idle');
    b.confirm(ready.key, 1_500, assembleSession(null, ready.traces, 'c1', 1_500));
    expect(b.openCount()).toBe(0);
    b.add({ unit: trace(2, { session_end: true }), previous: null }, at, 1_600);
    const [ended] = take(1_600);
    expect(ended.reason).toBe('end-marker');
    expect(ended.previous?.trace_ids).toEqual(['t0', 't1']);
  });
});
