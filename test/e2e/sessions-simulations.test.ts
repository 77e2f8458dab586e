import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Score, Unit } from '../../shared/contracts/schemas/index.ts';
import { sendTurns, type TurnSpec } from '../helpers/agent-runs.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// Conversations and simulations end to end, in both modes, with agents on the real OTel SDK:
// three traces of one conversation (each re-sending the history) become one session unit with the
// dialog once and in order, scored by the session checks; a fourth trace after the session closed
// re-opens it as revision 2 (revision 1 kept with its scores). Simulation records posted before, after and never: the
// consistency check scores the first two and gives the third an error saying the record never came.

const MODES = [
  { name: 'embedded (in-process bus + DuckDB)', env: (): Record<string, string> => ({}) },
  {
    name: 'Kafka + ClickHouse',
    env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_sessions') }),
  },
];

const TURNS: TurnSpec[] = [
  { user: 'I need a table for two.', assistant: 'Which day would you like?' },
  { user: 'Friday at eight.', assistant: 'Booked: a table for two on Friday at 8 pm.' },
  { user: 'Thanks!', assistant: 'You are welcome.' },
];
const LATER: TurnSpec = { user: 'Can you make it three people?', assistant: 'Done: a table for three on Friday at 8 pm.' };
const dialogOf = (turns: readonly TurnSpec[]) => turns.flatMap((t) => [{ role: 'user', content: t.user }, { role: 'assistant', content: t.assistant }]);

for (const mode of MODES) {
  describe(`sessions and simulations: ${mode.name}`, () => {
    let h: Harness;
    const env = mode.env();
    beforeAll(async () => {
      h = await startPipeline({
        ...env,
        TRACECHECK_CHECKS: 'simulation_trace_consistency',
        TRACECHECK_SESSION_CHECKS: 'response_loop,task_completed',
        TRACECHECK_SESSION_IDLE_MS: '2000',
        TRACECHECK_SIMULATION_WAIT_MS: '6000',
        TRACECHECK_CONFIG_POLL_MS: '200',
      });
    });
    afterAll(async () => {
      await h?.stop();
      if (env.TRACECHECK_CLICKHOUSE_DATABASE) {
        await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
      }
    });
    const api = (path: string, init?: RequestInit) => fetch(`${h.pipeline.apiUrl()}${path}`, init);
    const json = async <T>(path: string): Promise<T> => {
      const res = await api(path);
      expect(res.status).toBe(200);
      return (await res.json()) as T;
    };

    it('three traces of one conversation → one session unit, dialog once and in order, scored; a fourth trace re-opens it as a new revision', async () => {
      const conversation = `conv-${randomUUID()}`;
      const opts = { collectorUrl: h.pipeline.collectorUrl() };
      const traceIds = await sendTurns(conversation, TURNS, opts);
      const listed = await waitFor(
        async () => (await json<{ units: Array<{ unit_id: string; kind: string }> }>(`/api/v1/units?kind=session&conversation_id=${conversation}`)).units[0],
        { timeoutMs: 60_000, intervalMs: 200, description: 'the session unit' },
      );
      expect(listed).toMatchObject({ unit_id: `session:${conversation}`, kind: 'session' });
      const scoresOf = async (n: number, scoredAfterMs = 0) =>
        waitFor(
          async () => {
            const got = await json<{ unit: Unit; scores: Score[] }>(`/api/v1/units/${encodeURIComponent(`session:${conversation}`)}`);
            return got.unit.trace_ids.length === n && got.scores.length === 2 && got.scores.every((s) => s.created_at_ms > scoredAfterMs) ? got : null;
          },
          { timeoutMs: 60_000, intervalMs: 200, description: `the session of ${n} traces with its 2 scores` },
        );
      const first = await scoresOf(3);
      expect(first.unit.trace_ids).toEqual(traceIds);
      expect(first.unit.message_history.map((m) => ({ role: m.role, content: m.content }))).toEqual(dialogOf(TURNS));
      expect(first.scores.map((s) => [s.check, s.unit_kind, s.status]).sort()).toEqual([['response_loop', 'session', 'ok'], ['task_completed', 'session', 'ok']]);

      // The session has closed (idle 2 s); a fourth turn re-opens it.
      const [fourth] = await sendTurns(conversation, [LATER], { ...opts, history: dialogOf(TURNS) });
      const firstAt = Math.max(...first.scores.map((s) => s.created_at_ms));
      const second = await scoresOf(4, firstAt);
      expect(second.unit.trace_ids).toEqual([...traceIds, fourth]);
      expect(second.unit.message_history.map((m) => ({ role: m.role, content: m.content }))).toEqual(dialogOf([...TURNS, LATER]));
      expect(second.unit.model_output).toBe(LATER.assistant);
      expect(second.scores.map((s) => [s.check, s.status]).sort()).toEqual([['response_loop', 'ok'], ['task_completed', 'ok']]);
      // Exactly one session unit for the conversation.
      expect((await json<{ units: unknown[] }>(`/api/v1/units?kind=session&conversation_id=${conversation}`)).units).toHaveLength(1);
      // Re-opened, not rewritten: the session of three traces is revision 1, kept with its scores.
      const history = await json<{ revisions: Array<{ revision: number; latest: boolean; changed: string[] | null; scores: Array<{ check: string; unit_revision: number }> }> }>(
        `/api/v1/units/${encodeURIComponent(`session:${conversation}`)}/revisions`,
      );
      expect(history.revisions.map((r) => [r.revision, r.latest, r.changed, r.scores.map((sc) => [sc.check, sc.unit_revision]).sort()])).toEqual([
        [1, false, null, [['response_loop', 1], ['task_completed', 1]]],
        [2, true, ['model_output', 'messages', 'span_count'], [['response_loop', 2], ['task_completed', 2]]],
      ]);
      const earlier = await json<{ unit: Unit; revision: number }>(`/api/v1/units/${encodeURIComponent(`session:${conversation}`)}?revision=1`);
      expect([earlier.revision, earlier.unit.trace_ids]).toEqual([1, traceIds]);
    });

    it('a simulation record posted before, after, and never: scored, scored, an error score saying why', async () => {
      const ids = { before: `sim-before-${randomUUID()}`, after: `sim-after-${randomUUID()}`, never: `sim-never-${randomUUID()}` };
      const turn: TurnSpec = { user: 'What time do you open?', assistant: 'We open at 9 am.' };
      const post = async (id: string) => {
        const res = await api(`/api/v1/simulations/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: dialogOf([turn]) }) });
        expect(res.status).toBe(201);
      };
      await post(ids.before);
      const opts = { collectorUrl: h.pipeline.collectorUrl() };
      const [tBefore] = await sendTurns(undefined, [{ ...turn, attributes: { 'tracecheck.simulation.id': ids.before } }], opts);
      const [tAfter] = await sendTurns(undefined, [{ ...turn, attributes: { 'tracecheck.simulation.id': ids.after } }], opts);
      const [tNever] = await sendTurns(undefined, [{ ...turn, attributes: { 'tracecheck.simulation.id': ids.never } }], opts);
      // Posted once its unit is waiting (stored, not yet scored).
      await waitFor(async () => (await api(`/api/v1/units/${tAfter}`)).status === 200, { timeoutMs: 30_000, description: 'the unit of the "after" simulation' });
      await post(ids.after);
      const scoreOf = (traceId: string) =>
        waitFor(async () => (await json<{ scores: Score[] }>(`/api/v1/scores?unit_id=${traceId}&check=simulation_trace_consistency`)).scores[0], { timeoutMs: 60_000, intervalMs: 200, description: `the consistency score of ${traceId}` });
      expect(await scoreOf(tBefore)).toMatchObject({ status: 'ok', passed: true, explanation: 'all 2 simulation turns match the trace in order' });
      expect(await scoreOf(tAfter)).toMatchObject({ status: 'ok', passed: true });
      const never = await scoreOf(tNever);
      expect(never.status).toBe('error');
      expect(never.error).toBe(`the dialog of simulation "${ids.never}" never arrived within 6000 ms (POST /api/v1/simulations/${ids.never}, or spans with tracecheck.simulation.record = true)`);
    });
  });
}
