import { describe, expect, it } from 'vitest';
import type { ScoreQuery } from '../../adapters/store/contract.ts';
import type { Score } from '../../contracts/schemas/index.ts';
import { queueItems } from './queue.ts';
import { MAX_QUEUE_UNIT_IDS, ReviewQueueInputSchema, ReviewQueueSchema, type ReviewQueue } from './schemas.ts';

// Reading a queue cost one store query per unit added by id (up to 10,000, which need not exist):
// four reads of such a queue at once slowed every project's API. The ids are now read in one query.

const score = (unit_id: string, created_at_ms: number, check_version = 'v1'): Score => ({
  schema_version: 1, unit_id, unit_kind: 'trace', check: 'loop_guard', check_version, status: 'ok', value: 0, passed: false, explanation: '',
  method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'a',
  agent_version: 'v1', environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms, project: 'shop',
});

function fakeStore(scores: Score[]) {
  const queries: ScoreQuery[] = [];
  return {
    queries,
    store: {
      queryScores(q: ScoreQuery) {
        queries.push(q);
        const ids = q.unitIds ? new Set(q.unitIds) : null;
        return Promise.resolve(scores.filter((s) => (ids ? ids.has(s.unit_id) : s.passed === q.passed)).sort((a, b) => b.created_at_ms - a.created_at_ms));
      },
      getUnit: () => Promise.resolve(null),
    },
  };
}

const queue = (unit_ids: string[]): ReviewQueue => ({ id: 'q', project: 'shop', name: 'n', filter: { check: 'loop_guard', passed: true }, sample_rate: 1, unit_ids, created_at_ms: 1, updated_at_ms: 1 });

describe('queueItems', () => {
  it('reads every unit added by id in one store query, against its newest score', async () => {
    const ids = Array.from({ length: MAX_QUEUE_UNIT_IDS }, (_, i) => `u${i}`);
    const { store, queries } = fakeStore([score('u1', 10, 'v1'), score('u1', 20, 'v2'), score('u7', 15)]);
    const items = await queueItems(store, queue(ids));
    expect(queries.map((q) => q.unitIds?.length ?? 'filter')).toEqual(['filter', MAX_QUEUE_UNIT_IDS]);
    expect(queries[1]).toMatchObject({ project: 'shop', check: 'loop_guard' });
    expect(items.map((s) => [s.unit_id, s.check_version])).toEqual([['u7', 'v1'], ['u1', 'v2']]);
  });

  it('caps the ids a queue takes, and still reads a queue stored with more before the cap', async () => {
    const over = Array.from({ length: MAX_QUEUE_UNIT_IDS + 1 }, (_, i) => `u${i}`);
    expect(ReviewQueueInputSchema.safeParse({ name: 'n', filter: { check: 'c' }, unit_ids: over }).success).toBe(false);
    const legacy = Array.from({ length: 1_200 }, (_, i) => `u${i}`);
    expect(ReviewQueueSchema.parse(queue(legacy)).unit_ids).toHaveLength(1_200);
    const { store, queries } = fakeStore([]);
    await queueItems(store, queue(legacy));
    expect(queries.map((q) => q.unitIds?.length ?? 'filter')).toEqual(['filter', 500, 500, 200]);
  });
});
