import { describe, expect, it } from 'vitest';
import type { EvaluationExportStatus, PipelineStatus } from '../../../shared/kit/metrics/index.ts';
import { pipelineCard } from './pages/pipeline-card.ts';
import { combineStatus } from './pipeline-status.ts';

const NOW = 1_000_000;
const doc = (over: Partial<PipelineStatus>): PipelineStatus => ({ instance: 'a', services: ['scorer'], written_at_ms: NOW - 5_000, interval_ms: 10_000, stages: [], judge: null, scored_per_minute: null, ...over });

describe('combineStatus', () => {
  it('sums the stages of the fresh processes, ignores stale ones, and estimates when the units waiting are scored', () => {
    const answer = combineStatus(
      [
        doc({ instance: 'asm', services: ['assembler'], open_sessions: { count: 3, idle_ms: 900_000 }, stages: [{ stage: 'assemble', topic: 'spans', group: 'x', waiting: 12, error: null }, { stage: 'sessions', topic: 's', group: 'y', waiting: 0, error: null }] }),
        doc({ instance: 's1', stages: [{ stage: 'score', topic: 'units', group: 'g', waiting: 900, error: null }], judge: { rate_per_minute: 300, concurrency: 4, in_flight: 4, waiting: 30 }, scored_per_minute: 300 }),
        doc({ instance: 's2', stages: [{ stage: 'score', topic: 'units', group: 'g', waiting: 600, error: 'broker down' }], judge: { rate_per_minute: 300, concurrency: 4, in_flight: 2, waiting: 0 }, scored_per_minute: 300 }),
        doc({ instance: 'dead', written_at_ms: NOW - 31_000, stages: [{ stage: 'score', topic: 'units', group: 'g', waiting: 5_000, error: null }], scored_per_minute: 1 }),
      ],
      NOW,
    );
    expect(answer.processes.map((p) => p.instance)).toEqual(['asm', 's1', 's2']);
    expect(answer.stages.map((s) => [s.stage, s.waiting, s.error])).toEqual([['assemble', 12, null], ['score', 1_500, 'broker down'], ['route', null, null], ['sessions', 0, null]]);
    expect(answer.judge).toEqual({ rate_per_minute: 600, concurrency: 8, in_flight: 6, waiting: 30 });
    expect(answer.scored_per_minute).toBe(600);
    expect(answer.eta_ms).toBe(150_000);
    expect(answer.open_sessions).toEqual({ count: 3, idle_ms: 900_000 });
    expect(answer.problems).toEqual([]);
  });

  it('gives each stage the longest wait its in-process reports measured, and null where none measured one (Kafka)', () => {
    const answer = combineStatus(
      [
        doc({ instance: 'a', stages: [{ stage: 'score', topic: 'u', group: null, waiting: 40, lag_ms: 7_200, error: null }, { stage: 'assemble', topic: 's', group: null, waiting: 0, lag_ms: 0, error: null }] }),
        doc({ instance: 'b', stages: [{ stage: 'score', topic: 'u', group: null, waiting: 10, lag_ms: 300, error: null }, { stage: 'sessions', topic: 't', group: 'g', waiting: 3, error: null }] }),
      ],
      NOW,
    );
    expect(answer.stages.map((s) => [s.stage, s.lag_ms])).toEqual([['assemble', 0], ['score', 7_200], ['route', null], ['sessions', null]]);
    expect(pipelineCard(answer).toString()).toContain('<div class="muted" data-lag>oldest waiting 7 s</div>');
  });

  it('says caught up, unknown, or that nothing reports', () => {
    expect(combineStatus([doc({ stages: [{ stage: 'score', topic: 'u', group: null, waiting: 0, error: null }], scored_per_minute: 0 })], NOW).eta_ms).toBe(0);
    const stalled = combineStatus([doc({ stages: [{ stage: 'score', topic: 'u', group: null, waiting: 10, error: null }], scored_per_minute: 0 })], NOW);
    expect(stalled.eta_ms).toBeNull();
    expect(stalled.problems).toEqual(['No process reports the assemble stage.', 'No process reports the sessions stage.']);
    expect(stalled.open_sessions).toBeNull();
    const none = combineStatus([], NOW);
    expect(none.stages.every((s) => s.waiting === null)).toBe(true);
    expect(none.problems).toHaveLength(1);
    expect(none.problems[0]).toMatch(/^No pipeline process has reported in the last 30 s/);
    expect(none.evaluation_export).toBeNull();
  });

  it("sums the scorers' evaluation exports and names what was not delivered", () => {
    const exported = (over: Partial<EvaluationExportStatus>): EvaluationExportStatus => ({ protocol: 'grpc', endpoint: 'http://otel:4317/', sent: 0, rejected: 0, failed: 0, dropped: 0, retries: 0, queued: 0, last_error: null, last_error_at_ms: null, ...over });
    const stages: PipelineStatus['stages'] = [{ stage: 'assemble', topic: 's', group: null, waiting: 0, error: null }, { stage: 'score', topic: 'u', group: null, waiting: 0, error: null }, { stage: 'sessions', topic: 'x', group: null, waiting: 0, error: null }];
    const fine = combineStatus([doc({ stages, scored_per_minute: 1, evaluation_export: exported({ sent: 40, queued: 2 }) })], NOW);
    expect(fine.evaluation_export).toEqual({ sent: 40, rejected: 0, failed: 0, dropped: 0, retries: 0, queued: 2, endpoints: ['http://otel:4317/ (grpc)'], last_error: null, last_error_at_ms: null });
    expect(fine.problems).toEqual([]);
    const answer = combineStatus(
      [
        doc({ instance: 's1', stages, scored_per_minute: 1, evaluation_export: exported({ sent: 10, failed: 3, retries: 5, last_error: 'gRPC otel:4317: UNAVAILABLE', last_error_at_ms: NOW - 9_000 }) }),
        doc({ instance: 's2', scored_per_minute: 1, evaluation_export: exported({ sent: 7, dropped: 2, rejected: 1, queued: 4, last_error: 'gRPC otel:4317: DEADLINE_EXCEEDED', last_error_at_ms: NOW - 1_000 }) }),
      ],
      NOW,
    );
    expect(answer.evaluation_export).toEqual({ sent: 17, rejected: 1, failed: 3, dropped: 2, retries: 5, queued: 4, endpoints: ['http://otel:4317/ (grpc)'], last_error: 'gRPC otel:4317: DEADLINE_EXCEEDED', last_error_at_ms: NOW - 1_000 });
    expect(answer.problems).toEqual(['Evaluation records not delivered to http://otel:4317/ (grpc): 3 given up, 2 dropped, 1 rejected (latest error: gRPC otel:4317: DEADLINE_EXCEEDED).']);
  });
});
