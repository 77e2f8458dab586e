import { describe, expect, it } from 'vitest';
import { formatScoreTable } from './demo-scores.ts';

describe('formatScoreTable', () => {
  it('prints one aligned row per trace and check', () => {
    const table = formatScoreTable([
      {
        scenario: 'healthy',
        traceId: 'a'.repeat(32),
        scores: [
          { check: 'function_result_present', value: 1, passed: true, explanation: 'Every tool call has a result.', method: 'deterministic', status: 'ok' },
          { check: 'task_completed', value: 1, passed: true, explanation: 'Done.', method: 'model', status: 'ok' },
        ],
      },
      {
        scenario: 'loops',
        traceId: 'b'.repeat(32),
        scores: [{ check: 'task_completed', value: null, passed: null, explanation: '', method: 'model', status: 'not_run', error: 'no judge configured' }],
      },
    ]);
    expect(table.split('\n')).toEqual([
      `conversation  trace id${' '.repeat(26)}check                    result   value  method         explanation`,
      `healthy       ${'a'.repeat(32)}  function_result_present  PASS     1      deterministic  Every tool call has a result.`,
      `healthy       ${'a'.repeat(32)}  task_completed           PASS     1      model          Done.`,
      `loops         ${'b'.repeat(32)}  task_completed           NOT_RUN  -      model          no judge configured`,
    ]);
  });
});
