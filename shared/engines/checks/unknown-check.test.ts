import { describe, expect, it } from 'vitest';
import { closestCheckNames, unknownCheckMessage } from './unknown-check.ts';

const catalog = ['task_completed', 'tool_call_success', 'loop_guard', 'word_count_code', 'faithfulness', 'task_completed_session'];

describe('unknown check names', () => {
  it('suggests the closest name for a typo', () => {
    expect(unknownCheckMessage('task_completd', catalog)).toBe('unknown check "task_completd"; did you mean "task_completed"?');
    expect(unknownCheckMessage('Loop_Guard', catalog)).toBe('unknown check "Loop_Guard"; did you mean "loop_guard"?');
  });

  it('lists up to three close names, nearest first, ties by name', () => {
    expect(closestCheckNames('check_a', ['check_b', 'check_c', 'check_d', 'check_ab', 'other'])).toEqual(['check_ab', 'check_b', 'check_c']);
    expect(unknownCheckMessage('check_a', ['check_b', 'check_c', 'check_d'])).toBe('unknown check "check_a"; did you mean "check_b", "check_c" or "check_d"?');
  });

  it('suggests nothing a typo cannot explain, and says where the names are', () => {
    expect(closestCheckNames('politeness', catalog)).toEqual([]);
    expect(unknownCheckMessage('politeness', catalog)).toBe('unknown check "politeness" (GET /api/v1/checks lists the checks)');
    expect(unknownCheckMessage('x', [])).toBe('unknown check "x" (GET /api/v1/checks lists the checks)');
  });
});
