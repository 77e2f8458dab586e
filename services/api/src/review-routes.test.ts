import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import type { Score, Unit } from '../../../shared/contracts/schemas/index.ts';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { CheckAgreementSchema } from './review-schemas.ts';
import { createApp } from './create-app.ts';

// Review queues, reviews and agreement through the API, project-scoped, on an embedded store.

const log = createSilentLogger();
const store = createDuckDbStore({ path: ':memory:', log });
const keyring = createKeyring({ store, log });
let t = 10_000;
const app = createApp({ store, log, keyring, now: () => ++t });

const unit = (id: string, project: string): Unit => ({
  schema_version: 1, unit_id: id, kind: 'trace', trace_ids: [id], agent_name: 'a', agent_version: 'v1', service: 's', environment: 'prod',
  conversation_id: null, model: 'm', model_input: [], model_output: 'hi', message_history: [], tool_calls: [], tools: [], scenario_input: null,
  scenario_result: null, simulation_id: null, simulation_message_history: null, usage: { input_tokens: 1, output_tokens: 1 }, errors: [],
  truncated: false, span_count: 1, start_time_ms: 1_000, end_time_ms: 2_000, assembled_at_ms: 3_000, project,
});
const score = (id: string, project: string, i: number, passed = false): Score => ({
  schema_version: 1, unit_id: id, unit_kind: 'trace', check: 'loop_guard', check_version: 'h1', status: 'ok', value: passed ? 1 : 0, passed, explanation: 'loops',
  method: 'deterministic', error: null, judge_model: null, latency_ms: 1, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'a',
  agent_version: 'v1', environment: 'prod', service: 's', unit_end_time_ms: 2_000, created_at_ms: 3_000 + i, project,
});

const ids = Array.from({ length: 30 }, (_, i) => `shop-${String(i).padStart(2, '0')}`);
const keys = { shopRead: '', shopAdmin: '', bankAdmin: '' };
beforeAll(async () => {
  await store.start();
  await store.writeUnits([...ids.map((id) => unit(id, 'shop')), unit('shop-ok', 'shop'), unit('bank-1', 'bank')]);
  await store.writeScores([...ids.map((id, i) => score(id, 'shop', i)), score('shop-ok', 'shop', 99, true), score('bank-1', 'bank', 0)]);
  keys.shopRead = (await keyring.create('shop', 'read')).key;
  keys.shopAdmin = (await keyring.create('shop', 'admin')).key;
  keys.bankAdmin = (await keyring.create('bank', 'admin')).key;
});
afterAll(() => store.shutdown());

// Answers are read field by field; their shapes are checked against the route schemas (CheckAgreementSchema) where it matters.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const call = async (method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> => {
  const res = await app.request(path, { method, headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, json: res.status === 204 ? null : await res.json() };
};

describe('review queues and reviews', () => {
  it('walks a queue over loop_guard failures: 25 agree, 5 disagree, then a second reviewer disagrees on 3', async () => {
    const created = await call('POST', '/api/v1/review-queues', keys.shopAdmin, { name: 'loop failures', filter: { check: 'loop_guard', passed: false } });
    expect(created.status).toBe(201);
    const qid = created.json.id as string;
    expect((await call('GET', `/api/v1/review-queues/${qid}`, keys.shopRead)).json.units).toBe(30);
    const seen: string[] = [];
    for (let i = 0; i < 30; i++) {
      const next = await call('GET', `/api/v1/review-queues/${qid}/next?reviewer=ann`, keys.shopRead);
      expect(next.json).toMatchObject({ position: i + 1, total: 30, reviewed: i, check: 'loop_guard' });
      seen.push(next.json.unit_id);
      const posted = await call('POST', '/api/v1/reviews', keys.shopAdmin, { unit_id: next.json.unit_id, check: 'loop_guard', agrees: i < 25, reviewer: 'ann', queue_id: qid, ...(i === 29 ? { note: 'not a loop: retries' } : {}) });
      expect(posted.status).toBe(201);
    }
    expect(seen).toEqual(ids);
    expect((await call('GET', `/api/v1/review-queues/${qid}/next?reviewer=ann`, keys.shopRead)).json).toMatchObject({ unit_id: null, reviewed: 30 });
    const agreement = await call('GET', '/api/v1/checks/loop_guard/agreement?version=h1', keys.shopRead);
    CheckAgreementSchema.parse(agreement.json);
    expect(agreement.json.binary.confusion).toEqual({ fail_fail: 25, fail_pass: 5, pass_fail: 0, pass_pass: 0 });
    expect(agreement.json.binary.agreement).toMatchObject({ successes: 25, total: 30 });
    expect(agreement.json.binary.kappa).toBe(0);

    for (const [i, id] of ids.entries()) await call('POST', '/api/v1/reviews', keys.shopAdmin, { unit_id: id, check: 'loop_guard', agrees: i < 25 || i >= 28, reviewer: 'bob' });
    const both = await call('GET', '/api/v1/checks/loop_guard/agreement', keys.shopRead);
    expect(both.json.inter_reviewer).toMatchObject({ items: 30, pairs: 30, agreeing_pairs: 28, raters: 2 });
    expect(both.json.inter_reviewer.cohen_kappa).toBeCloseTo(5 / 7, 12);
    const wrong = await call('GET', '/api/v1/reviews?agrees=false&reviewer=ann', keys.shopRead);
    expect(wrong.json.reviews.map((r: { unit_id: string }) => r.unit_id).sort()).toEqual(ids.slice(25));
    expect(wrong.json.reviews.find((r: { note: string }) => r.note !== '')).toMatchObject({ unit_id: ids[29], note: 'not a loop: retries' });
  });

  it("adds units by id; another project's key sees no queue, review or agreement; a read key cannot write", async () => {
    const created = await call('POST', '/api/v1/review-queues', keys.shopAdmin, { name: 'added', filter: { check: 'loop_guard', passed: true }, unit_ids: [] });
    const qid = created.json.id as string;
    expect((await call('GET', `/api/v1/review-queues/${qid}`, keys.shopRead)).json.units).toBe(1);
    expect((await call('POST', `/api/v1/review-queues/${qid}/units`, keys.shopAdmin, { unit_ids: [ids[0], 'bank-1'] })).status).toBe(200);
    expect((await call('GET', `/api/v1/review-queues/${qid}`, keys.shopRead)).json.units).toBe(2);

    expect((await call('GET', '/api/v1/review-queues', keys.bankAdmin)).json.queues).toEqual([]);
    expect((await call('GET', `/api/v1/review-queues/${qid}`, keys.bankAdmin)).status).toBe(404);
    expect((await call('GET', `/api/v1/review-queues/${qid}/next`, keys.bankAdmin)).status).toBe(404);
    expect((await call('GET', '/api/v1/reviews', keys.bankAdmin)).json).toEqual({ reviews: [], count: 0 });
    expect((await call('GET', '/api/v1/checks/loop_guard/agreement', keys.bankAdmin)).json).toMatchObject({ reviews: 0, binary: null });
    expect((await call('POST', '/api/v1/reviews', keys.bankAdmin, { unit_id: ids[0], check: 'loop_guard', agrees: true })).status).toBe(404);

    expect((await call('POST', '/api/v1/reviews', keys.shopRead, { unit_id: ids[0], check: 'loop_guard', agrees: true })).status).toBe(403);
    expect((await call('POST', '/api/v1/review-queues', keys.shopRead, { name: 'x', filter: { check: 'c' } })).status).toBe(403);
  });

  it('names the key as the reviewer by default and refuses bad bodies', async () => {
    const posted = await call('POST', '/api/v1/reviews', keys.shopAdmin, { unit_id: 'shop-ok', check: 'loop_guard', verdict_value: 0, labels: ['flaky'] });
    expect(posted.status).toBe(201);
    expect(posted.json).toMatchObject({ agrees: false, verdict_value: 0, labels: ['flaky'], check_passed: true, revision: 1 });
    expect(posted.json.reviewer).toMatch(/^[0-9a-f]{12}$/);
    expect((await call('POST', '/api/v1/reviews', keys.shopAdmin, { unit_id: 'shop-ok', check: 'loop_guard' })).status).toBe(400);
    expect((await call('POST', '/api/v1/reviews', keys.shopAdmin, { unit_id: 'shop-ok', check: 'loop_guard', agrees: true, reviewer: 'a\u0000b' })).status).toBe(400);
    expect((await call('GET', '/api/v1/reviews?limit=0', keys.shopRead)).status).toBe(400);
    expect((await call('POST', '/api/v1/review-queues', keys.shopAdmin, { name: 'x', filter: { check: 'c' }, sample_rate: 2 })).status).toBe(400);
  });
});

describe('datasets', () => {
  it('snapshots the units a queue marked wrong as immutable versions, per project', async () => {
    const queues = (await call('GET', '/api/v1/review-queues', keys.shopRead)).json.queues as { id: string; name: string }[];
    const qid = queues.find((q) => q.name === 'loop failures')!.id;
    const first = await call('POST', '/api/v1/datasets', keys.shopAdmin, { name: 'loop-wrong', queue_id: qid });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ name: 'loop-wrong', version: 1, units: 5 });
    const second = await call('POST', '/api/v1/datasets', keys.shopAdmin, { name: 'loop-wrong', unit_ids: [ids[0]] });
    expect(second.json).toMatchObject({ version: 2, units: 1 });
    const v1 = await call('GET', '/api/v1/datasets/loop-wrong?version=1', keys.shopRead);
    expect(v1.json.items.map((i: { unit_id: string }) => i.unit_id).sort()).toEqual(ids.slice(25));
    expect(v1.json.items[0].verdicts.map((v: { reviewer: string }) => v.reviewer).sort()).toContain('ann');
    expect((await call('GET', '/api/v1/datasets/loop-wrong', keys.shopRead)).json.version).toBe(2);
    expect((await call('GET', '/api/v1/datasets', keys.bankAdmin)).json.datasets).toEqual([]);
    expect((await call('GET', '/api/v1/datasets/loop-wrong', keys.bankAdmin)).status).toBe(404);
    expect((await call('POST', '/api/v1/datasets', keys.shopRead, { name: 'x', unit_ids: [ids[0]] })).status).toBe(403);
    expect((await call('POST', '/api/v1/datasets', keys.shopAdmin, { name: 'x', unit_ids: [ids[0]], queue_id: qid })).status).toBe(400);
  });
});
