import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../runtime/logging/index.ts';
import { PermanentError } from '../../runtime/errors/index.ts';
import { createWriteSequence, lastPerScoreKey, normalizeScoreQuery, rowToScore, scoreToRow } from './rows.ts';
import { timeBounds } from './conditions.ts';
import type { Score } from '../../contracts/schemas/index.ts';

const score: Score = {
  schema_version: 1,
  unit_id: 'u1',
  unit_kind: 'trace',
  check: 'c',
  check_version: '1',
  status: 'ok',
  value: 1,
  passed: true,
  explanation: 'fine',
  method: 'code',
  error: null,
  judge_model: null,
  latency_ms: 1.5,
  input_tokens: 0,
  output_tokens: 0,
  cost_usd: 0,
  agent_name: null,
  agent_version: null,
  environment: null,
  service: null,
  unit_end_time_ms: 10,
  created_at_ms: 20,
};

describe('score rows', () => {
  it('converts driver values back through the schema', () => {
    const log = createSilentLogger();
    expect(rowToScore({ ...score, passed: 1, input_tokens: 0n, created_at_ms: 20n }, log)).toEqual(score);
    expect(rowToScore({ ...score, passed: 0 }, log)).toEqual({ ...score, passed: false });
    expect(rowToScore({ ...score, status: 'weird' }, log)).toBeNull();
    expect(rowToScore({ ...score, created_at_ms: '20' }, log)).toBeNull();
    expect(rowToScore({ ...score, passed: 2 }, log)).toBeNull();
  });

  it('refuses scores that would not come back unchanged', () => {
    expect(() => scoreToRow({ ...score, created_at_ms: 1.5 })).toThrow(PermanentError);
    expect(() => scoreToRow({ ...score, created_at_ms: -1 })).toThrow(PermanentError);
    expect(() => scoreToRow({ ...score, cost_usd: Number.POSITIVE_INFINITY })).toThrow(PermanentError);
  });

  it('keeps the last score per key in a batch', () => {
    const a = scoreToRow({ ...score, explanation: 'a' });
    const b = scoreToRow({ ...score, explanation: 'b' });
    const other = scoreToRow({ ...score, check: 'd' });
    expect(lastPerScoreKey([a, other, b])).toEqual([other, b]);
  });
});

describe('normalizeScoreQuery', () => {
  it('defaults and clamps the limit', () => {
    expect(normalizeScoreQuery({}).limit).toBe(100);
    expect(normalizeScoreQuery({ limit: 20_000 }).limit).toBe(10_000);
    expect(() => normalizeScoreQuery({ limit: 0 })).toThrow(PermanentError);
    expect(() => normalizeScoreQuery({ toMs: Number.NaN })).toThrow(PermanentError);
  });

  it('turns bounds into integers that cannot overflow', () => {
    const n = timeBounds;
    expect(n(1.5, 2.5)).toEqual({ fromMs: 2, toMs: 3, empty: false });
    expect(n(-1e18, 1e300)).toEqual({ fromMs: undefined, toMs: undefined, empty: false });
    expect(n(undefined, 0).empty).toBe(true);
    expect(n(1e300, undefined).empty).toBe(true);
    expect(n(10, 10).empty).toBe(true);
    expect(n(10, 10.5)).toEqual({ fromMs: 10, toMs: 11, empty: false });
  });

  it('states filters as conditions on created_at_ms, and an empty string as "has none"', () => {
    expect(normalizeScoreQuery({ check: 'c', agentVersion: '', passed: false, fromMs: 5 }).conditions).toEqual([
      { kind: 'cmp', column: 'check', op: '=', value: 'c' },
      { kind: 'null', column: 'agent_version' },
      { kind: 'cmp', column: 'passed', op: '=', value: false },
      { kind: 'cmp', column: 'created_at_ms', op: '>=', value: 5 },
    ]);
  });
});

describe('createWriteSequence', () => {
  it('strictly increases even when the clock stands still or goes back', () => {
    const times = [1000, 1000, 999, 1001];
    const next = createWriteSequence(() => times.shift() ?? 0);
    expect([next(), next(), next(), next()]).toEqual([1_000_000, 1_000_001, 1_000_002, 1_001_000]);
  });
});
