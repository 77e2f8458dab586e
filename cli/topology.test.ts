import { describe, expect, it } from 'vitest';
import { TOPOLOGY, isTopic, topicsOf } from './topology.ts';

describe('the declared topology', () => {
  it('names every stage once', () => {
    const stages = TOPOLOGY.map((s) => s.stage);
    expect(new Set(stages).size).toBe(stages.length);
  });

  it('has every topic written by some stage, and read by one', () => {
    const written = new Set(TOPOLOGY.flatMap((s) => s.out).filter(isTopic));
    const read = new Set(TOPOLOGY.flatMap((s) => s.in).filter(isTopic));
    expect([...written].sort()).toEqual(['scores', 'sessions', 'spans', 'units']);
    expect([...read].sort()).toEqual(['scores', 'sessions', 'spans', 'units']);
  });

  it('holds the session loop: units → session router → session traces → session aggregator → units → scorer', () => {
    const by = (stage: string) => TOPOLOGY.find((s) => s.stage === stage);
    expect(by('session router')).toMatchObject({ service: 'assembler', in: ['units'], out: ['sessions'] });
    expect(by('session aggregator')).toMatchObject({ service: 'assembler', in: ['sessions'], out: ['units'] });
    expect(by('scorer')).toMatchObject({ in: ['units'] });
    expect(by('problem miner')).toMatchObject({ service: 'alerter', in: ['scores'], out: ['store'] });
    expect(by('unscored sweep')).toMatchObject({ service: 'scorer', in: ['store'], out: ['units'], onlyWith: 'duckdb' });
  });

  it('gives each process the topics its stages touch', () => {
    expect(topicsOf(new Set(['collector']))).toEqual(['spans']);
    expect(topicsOf(new Set(['assembler']))).toEqual(['spans', 'units', 'sessions']);
    // The scorer also reads the spans topic: other tools' evaluation events, as external scores.
    expect(topicsOf(new Set(['scorer']))).toEqual(['units', 'scores', 'spans']);
    expect(topicsOf(new Set(['api']))).toEqual([]);
    expect(topicsOf(new Set(['alerter']))).toEqual(['scores']);
    expect(topicsOf(new Set(['collector', 'assembler', 'scorer', 'api', 'alerter']))).toEqual(['spans', 'units', 'sessions', 'scores']);
  });
});
