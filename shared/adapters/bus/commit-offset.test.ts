import { describe, expect, it } from 'vitest';
import { nextCommitOffset } from './commit-offset.ts';

describe('nextCommitOffset', () => {
  it('commits the offset after the last handled one', () => {
    expect(nextCommitOffset('41', '41', null)).toBe('42');
  });
  it('holds back at the committable offset', () => {
    expect(nextCommitOffset('41', '10', null)).toBe('11');
  });
  it('never passes the last handled record', () => {
    expect(nextCommitOffset('5', '99', null)).toBe('6');
  });
  it('commits nothing when the handler allows nothing', () => {
    expect(nextCommitOffset('5', null, '3')).toBeNull();
  });
  it('never moves a commit backwards or repeats it', () => {
    expect(nextCommitOffset('41', '10', '20')).toBeNull();
    expect(nextCommitOffset('19', '19', '20')).toBeNull();
    expect(nextCommitOffset('20', '20', '20')).toBe('21');
  });
  it('allows "nothing of this partition yet" as -1', () => {
    expect(nextCommitOffset('7', '-1', null)).toBe('0');
  });
  it('handles offsets beyond 2^53', () => {
    expect(nextCommitOffset('9007199254740993', '9007199254740993', null)).toBe('9007199254740994');
  });
});
