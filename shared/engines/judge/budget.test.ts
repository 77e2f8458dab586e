import { describe, expect, it } from 'vitest';
import type { JudgeClient } from '../checks/index.ts';
import { costUsd, withBudget } from './budget.ts';

const judge: JudgeClient = { complete: () => Promise.resolve({ text: '[[1]]', model: 'gpt-4o-mini', inputTokens: 1_000_000, outputTokens: 0 }) };

describe('judge budget', () => {
  it('prices a call from the table, dated model names included', () => {
    expect(costUsd({ 'gpt-4o': [2.5, 10] }, 'gpt-4o-2024-08-06', 1_000_000, 100_000)).toBe(3.5);
    expect(costUsd({}, 'unknown', 1, 1)).toBeNull();
  });

  it('refuses calls beyond the per-minute rate and the daily spend, naming the budget', async () => {
    let t = Date.UTC(2026, 0, 1, 12);
    const perMinute = withBudget(judge, { callsPerMinute: 2 }, { owner: 'monitor "m"', prices: { 'gpt-4o-mini': [0.15, 0.6] }, now: () => t });
    await perMinute.complete({ system: '', user: '' });
    await perMinute.complete({ system: '', user: '' });
    await expect(perMinute.complete({ system: '', user: '' })).rejects.toThrow('judge budget of monitor "m" exhausted: more than 2 calls per minute');
    t += 30_000;
    await expect(perMinute.complete({ system: '', user: '' })).resolves.toBeDefined();

    const perDay = withBudget(judge, { usdPerDay: 0.3 }, { owner: 'monitor "d"', prices: { 'gpt-4o-mini': [0.15, 0.6] }, now: () => t });
    await perDay.complete({ system: '', user: '' });
    await perDay.complete({ system: '', user: '' });
    await expect(perDay.complete({ system: '', user: '' })).rejects.toThrow('judge budget of monitor "d" exhausted: $0.3000 spent today (UTC) of $0.3 per day');
    t += 24 * 3_600_000;
    await expect(perDay.complete({ system: '', user: '' })).resolves.toBeDefined();
    expect(perDay.usage()).toEqual({ calls: 3, refused: 1, spentUsd: 0.15 });
  });
});
