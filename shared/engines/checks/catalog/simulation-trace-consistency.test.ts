import { describe, expect, it } from 'vitest';
import { assistant, call, ctxWith, inputFrom, result, user, ok } from '../test-support.ts';
import { simulationTraceConsistency } from './simulation-trace-consistency.ts';

const check = simulationTraceConsistency.build(simulationTraceConsistency.definition);
const sim = [user('I want to cancel my flight.'), assistant('Sure, what is your booking code?'), user('It is ABC123.'), assistant('Your flight ABC123 is cancelled.')];

describe('simulation_trace_consistency', () => {
  it('passes when the trace holds the simulation dialog (tool traffic aside)', async () => {
    const trace = [sim[0], sim[1], sim[2], call('c1', 'cancel', { code: 'ABC123' }), result('c1', 'cancel', 'ok'), sim[3]];
    expect(await check.run(inputFrom(trace, { simulation_message_history: sim }), ctxWith())).toEqual({
      status: 'ok', value: 1, passed: true, method: 'deterministic', explanation: 'all 4 simulation turns match the trace in order',
    });
  });

  it('reports a turn the trace dropped', async () => {
    const out = await check.run(inputFrom([sim[0], sim[1], sim[3]], { simulation_message_history: sim }), ctxWith());
    expect(out).toMatchObject({ passed: false, explanation: '1 discrepancies: missing: simulation turn 2 (user: "It is ABC123.") is not in the trace' });
  });

  it('reports extra, altered and reordered turns', async () => {
    const trace = [sim[1], sim[0], user('It is ABC124.'), assistant('Your flight ABC123 is cancelled.'), assistant('Anything else?')];
    const out = await check.run(inputFrom(trace, { simulation_message_history: sim }), ctxWith());
    expect(ok(out).passed).toBe(false);
    expect(out.explanation).toBe(
      '3 discrepancies: extra: trace message 4 (assistant: "Anything else?") is not in the simulation; ' +
        'reordered: simulation turn 0 (user: "I want to cancel my flight.") appears out of order at trace message 1; ' +
        'altered: simulation turn 2 ("It is ABC123.") altered in trace message 2 ("It is ABC124.")',
    );
  });

  it('does not run without a simulation dialog', async () => {
    expect(await check.run(inputFrom(sim), ctxWith())).toEqual({ status: 'not_run', method: 'deterministic', error: 'the unit carries no simulation dialog (simulation_message_history)' });
  });
});
