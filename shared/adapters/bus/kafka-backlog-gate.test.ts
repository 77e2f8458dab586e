import { describe, expect, it } from 'vitest';
import { backlogOf } from './kafka-backlog-gate.ts';

describe('backlogOf', () => {
  const offsets = [
    { partition: 0, low: '10', high: '100' },
    { partition: 1, low: '0', high: '50' },
  ];
  it('counts what each group has not committed, a partition never committed from its low watermark, and takes the slowest group', () => {
    expect(backlogOf(offsets, [new Map([[0, '90'], [1, '50']])])).toBe(10);
    expect(backlogOf(offsets, [new Map([[0, '-1']])])).toBe(90 + 50);
    expect(backlogOf(offsets, [new Map([[0, '100'], [1, '50']]), new Map([[0, '40'], [1, '45']])])).toBe(65);
    expect(backlogOf(offsets, [])).toBe(0);
  });
});
