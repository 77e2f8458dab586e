import { describe, expect, it } from 'vitest';
import { scorerBacklog } from './scoring-plan-source.ts';

const consumer = (group: string, topic: string, total_lag: number, error: string | null = null) => ({ group, topic, total_lag, behind: false, partitions: [], measured_at: '', error });

describe('the scorer backlog the unit page reports', () => {
  it("is the scorer group's lag on the units topic, and unknown before a measurement or after a failed one", () => {
    const consumers = [consumer('tc-assembler', 'tracecheck.spans', 40), consumer('tc-scorer', 'tracecheck.units', 7)];
    expect(scorerBacklog({ consumers }, 'tc-scorer', 'tracecheck.units')).toBe(7);
    expect(scorerBacklog({ consumers: [] }, 'tc-scorer', 'tracecheck.units')).toBeNull();
    expect(scorerBacklog({ consumers: [consumer('tc-scorer', 'tracecheck.units', 7, 'broker unreachable')] }, 'tc-scorer', 'tracecheck.units')).toBeNull();
  });
});
