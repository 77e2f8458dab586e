import { describe, expect, it } from 'vitest';
import { createRecentOutputs, recentOutputsKey } from './recent-outputs.ts';

const outputs = (rows: { id: string; model_output: string | null }[]) => rows.map((r) => [r.id, r.model_output]);

describe('recent outputs (the live window of row-comparing checks)', () => {
  it('keeps the last outputs per agent and version, without the unit asked about', () => {
    const w = createRecentOutputs({ perAgent: 2 });
    const a1 = recentOutputsKey({ project: 'p', agent_name: 'a', agent_version: '1' });
    const a2 = recentOutputsKey({ project: 'p', agent_name: 'a', agent_version: '2' });
    w.remember(a1, 'u1', 'one');
    w.remember(a1, 'u2', 'two');
    w.remember(a1, 'u3', 'three');
    w.remember(a2, 'v1', 'other version');
    expect(outputs(w.peers(a1, 'x'))).toEqual([['u2', 'two'], ['u3', 'three']]);
    expect(outputs(w.peers(a1, 'u3'))).toEqual([['u2', 'two']]);
    expect(outputs(w.peers(a2, 'x'))).toEqual([['v1', 'other version']]);
  });

  it('replaces a revised unit, skips empty outputs, cuts long ones and forgets the least recent agent', () => {
    const w = createRecentOutputs({ perAgent: 5, maxAgents: 2, maxChars: 4 });
    w.remember('k1', 'u1', 'first answer');
    w.remember('k1', 'u1', 'revised');
    w.remember('k1', 'u2', '  ');
    w.remember('k1', 'u3', null);
    expect(outputs(w.peers('k1', 'x'))).toEqual([['u1', 'revi']]);
    w.remember('k2', 'v', 'b');
    w.remember('k1', 'u4', 'c');
    w.remember('k3', 'z', 'd');
    expect(w.peers('k2', 'x')).toEqual([]);
    expect(outputs(w.peers('k1', 'x'))).toEqual([['u1', 'revi'], ['u4', 'c']]);
  });
});
