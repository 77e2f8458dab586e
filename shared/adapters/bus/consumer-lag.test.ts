import { describe, expect, it } from 'vitest';
import { computeConsumerLag } from './consumer-lag.ts';

describe('computeConsumerLag', () => {
  const topicOffsets = [
    { partition: 0, low: '0', high: '120' },
    { partition: 1, low: '0', high: '40' },
    { partition: 2, low: '50', high: '90' },
  ];

  it('counts high watermark minus committed offset on the assigned partitions only', () => {
    const lag = computeConsumerLag({ topic: 't', groupId: 'g', assigned: [1, 0], topicOffsets, committed: new Map([[0, '100'], [1, '40'], [2, '60']]), nowMs: 5 });
    expect(lag).toEqual({
      topic: 't',
      groupId: 'g',
      partitions: [
        { partition: 0, committedOffset: '100', highWatermark: '120', lag: 20 },
        { partition: 1, committedOffset: '40', highWatermark: '40', lag: 0 },
      ],
      totalLag: 20,
      measuredAtMs: 5,
      error: null,
    });
  });

  it('counts the whole log of a partition the group never committed (-1), and from the log start when retention passed the commit', () => {
    const lag = computeConsumerLag({ topic: 't', groupId: 'g', assigned: [0, 2], topicOffsets, committed: new Map([[0, '-1'], [2, '10']]), nowMs: 0 });
    expect(lag.partitions).toEqual([
      { partition: 0, committedOffset: null, highWatermark: '120', lag: 120 },
      { partition: 2, committedOffset: '10', highWatermark: '90', lag: 40 },
    ]);
    expect(lag.totalLag).toBe(160);
  });

  it('reports nothing for a member without partitions, and skips a partition the broker did not describe', () => {
    expect(computeConsumerLag({ topic: 't', groupId: 'g', assigned: [], topicOffsets, committed: new Map(), nowMs: 0 }).partitions).toEqual([]);
    expect(computeConsumerLag({ topic: 't', groupId: 'g', assigned: [7], topicOffsets, committed: new Map(), nowMs: 0 }).totalLag).toBe(0);
  });
});
