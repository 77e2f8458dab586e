import type { Hono } from 'hono';
import { z } from 'zod';
import type { QueryStore } from '../../../shared/adapters/store/index.ts';
import { PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, PipelineStatusSchema, STAGES, type EvaluationExportStatus, type PipelineStatus, type Stage } from '../../../shared/kit/metrics/index.ts';
import type { RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

// The pipeline's backlog as one answer (GET /api/v1/pipeline and the overview's card): what each
// stage has waiting, the judge's queue and rate limit, the recent scoring rate and when the units
// waiting will be scored at that rate. Read from the status docs the pipeline processes write.

/**
 * On Kafka a stage's figure is its group's lag: records not committed, which also counts what a
 * windowed stage holds open (spans of traces within their grace, traces of sessions not yet idle).
 * In process it is the records not yet read.
 */
const STAGE_LABELS: Record<Stage, string> = {
  assemble: 'spans not yet assembled into units',
  score: 'units waiting to be scored',
  route: 'units waiting for the session router',
  sessions: 'trace units waiting for the session aggregator',
};

/** A process is heard from when its last doc is at most this many of its intervals old. */
const STALE_INTERVALS = 3;

const StageAnswerSchema = z.object({
  stage: z.enum(STAGES),
  label: z.string(),
  waiting: z.number().int().nullable().meta({ description: 'Records waiting, summed over the processes that run the stage; null: no process reported it.' }),
  lag_ms: z.number().nullable().meta({ description: 'In process (embedded): how long the oldest record waiting has waited, the longest of the processes; past TRACECHECK_MAX_LAG_MS the collector answers 429. null: not measured (Kafka counts records).' }),
  error: z.string().nullable().meta({ description: 'Why the last measurement failed (the count is then the last known).' }),
});

const PipelineAnswerSchema = z.object({
  measured_at_ms: z.number(),
  processes: z.array(z.object({ instance: z.string(), services: z.array(z.string()), written_at_ms: z.number() })),
  stages: z.array(StageAnswerSchema),
  judge: z
    .object({ rate_per_minute: z.number(), concurrency: z.number().int(), in_flight: z.number().int(), waiting: z.number().int() })
    .nullable()
    .meta({ description: 'The scorers\' judge: calls in flight, calls waiting for the rate limit or a slot, the limit (calls started per minute).' }),
  scored_per_minute: z.number().nullable().meta({ description: 'Units scored per minute over the last 5 minutes, all scorers; null: no scorer reported.' }),
  open_sessions: z
    .object({ count: z.number().int(), idle_ms: z.number() })
    .nullable()
    .meta({ description: 'Conversations held open by the session aggregators: each becomes a session unit idle_ms after its last trace (TRACECHECK_SESSION_IDLE_MS), or at once on a trace carrying tracecheck.session.end; null: no aggregator reported.' }),
  evaluation_export: z
    .object({
      sent: z.number().int(),
      rejected: z.number().int(),
      failed: z.number().int(),
      dropped: z.number().int(),
      retries: z.number().int(),
      queued: z.number().int(),
      endpoints: z.array(z.string()),
      last_error: z.string().nullable(),
      last_error_at_ms: z.number().nullable(),
    })
    .nullable()
    .meta({ description: 'Scores sent out as gen_ai.evaluation.result log records (TRACECHECK_EXPORT_OTLP_ENDPOINT), summed over the scorers since each started: taken by the receiver, rejected by it, given up, dropped from a full queue; retries, records waiting, the latest error. null: no scorer sends them.' }),
  eta_ms: z.number().nullable().meta({ description: 'How long until the units waiting are scored at that rate; 0: caught up; null: unknown (no scorer heard from, or none scored lately).' }),
  problems: z.array(z.string()).meta({ description: 'What could not be measured, in words.' }),
});
export type PipelineAnswer = z.infer<typeof PipelineAnswerSchema>;

/** The fresh status docs combined: backlogs summed per stage (Kafka members each report their partitions). Pure. */
export function combineStatus(docs: readonly PipelineStatus[], nowMs: number): PipelineAnswer {
  const fresh = docs.filter((d) => d.written_at_ms >= nowMs - STALE_INTERVALS * d.interval_ms);
  const stages = STAGES.map((stage) => {
    const reports = fresh.flatMap((d) => d.stages.filter((s) => s.stage === stage));
    const lags = reports.flatMap((s) => (typeof s.lag_ms === 'number' ? [s.lag_ms] : []));
    return {
      stage,
      label: STAGE_LABELS[stage],
      waiting: reports.length === 0 ? null : reports.reduce((n, s) => n + s.waiting, 0),
      lag_ms: lags.length === 0 ? null : Math.max(...lags),
      error: reports.find((s) => s.error !== null)?.error ?? null,
    };
  });
  const judges = fresh.flatMap((d) => (d.judge ? [d.judge] : []));
  const judge = judges.length === 0 ? null : judges.reduce((a, j) => ({ rate_per_minute: a.rate_per_minute + j.rate_per_minute, concurrency: a.concurrency + j.concurrency, in_flight: a.in_flight + j.in_flight, waiting: a.waiting + j.waiting }));
  const rates = fresh.flatMap((d) => (d.scored_per_minute === null ? [] : [d.scored_per_minute]));
  const scored = rates.length === 0 ? null : rates.reduce((a, b) => a + b, 0);
  const problems: string[] = [];
  if (fresh.length === 0) problems.push('No pipeline process has reported in the last 30 s: the stages are not running, or run without a store they can write to (on Kafka, only processes with ClickHouse report).');
  else {
    for (const s of stages) if (s.waiting === null && s.stage !== 'route') problems.push(`No process reports the ${s.stage} stage.`);
    if (scored === null) problems.push('No scorer has reported: no scoring rate, no estimate.');
  }
  const held = fresh.flatMap((d) => (d.open_sessions ? [d.open_sessions] : []));
  const openSessions = held.length === 0 ? null : { count: held.reduce((n, o) => n + o.count, 0), idle_ms: Math.max(...held.map((o) => o.idle_ms)) };
  const evaluationExport = combineExports(fresh.flatMap((d) => (d.evaluation_export ? [d.evaluation_export] : [])));
  if (evaluationExport && evaluationExport.failed + evaluationExport.dropped + evaluationExport.rejected > 0) {
    problems.push(`Evaluation records not delivered to ${evaluationExport.endpoints.join(', ')}: ${evaluationExport.failed} given up, ${evaluationExport.dropped} dropped, ${evaluationExport.rejected} rejected (latest error: ${evaluationExport.last_error ?? 'none'}).`);
  }
  const waiting = stages.find((s) => s.stage === 'score')!.waiting;
  const eta = waiting === null ? null : waiting === 0 ? 0 : scored !== null && scored > 0 ? Math.round((waiting / scored) * 60_000) : null;
  return {
    measured_at_ms: nowMs,
    processes: fresh.map((d) => ({ instance: d.instance, services: d.services, written_at_ms: d.written_at_ms })),
    stages,
    judge,
    scored_per_minute: scored === null ? null : Math.round(scored * 10) / 10,
    open_sessions: openSessions,
    evaluation_export: evaluationExport,
    eta_ms: eta,
    problems,
  };
}

function combineExports(reports: readonly EvaluationExportStatus[]): PipelineAnswer['evaluation_export'] {
  if (reports.length === 0) return null;
  const sum = (pick: (r: EvaluationExportStatus) => number): number => reports.reduce((n, r) => n + pick(r), 0);
  const latest = reports.filter((r) => r.last_error_at_ms !== null).sort((a, b) => b.last_error_at_ms! - a.last_error_at_ms!)[0];
  return {
    sent: sum((r) => r.sent),
    rejected: sum((r) => r.rejected),
    failed: sum((r) => r.failed),
    dropped: sum((r) => r.dropped),
    retries: sum((r) => r.retries),
    queued: sum((r) => r.queued),
    endpoints: [...new Set(reports.map((r) => `${r.endpoint} (${r.protocol})`))],
    last_error: latest?.last_error ?? null,
    last_error_at_ms: latest?.last_error_at_ms ?? null,
  };
}

/** Reads the status docs of every process (malformed ones skipped) and combines them. */
export async function readPipeline(store: Pick<QueryStore, 'listDocs'>, nowMs: number): Promise<PipelineAnswer> {
  const docs = await store.listDocs({ kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, limit: 1000 });
  const parsed = docs.flatMap((d) => {
    const r = PipelineStatusSchema.safeParse(d.body);
    return r.success ? [r.data] : [];
  });
  return combineStatus(parsed, nowMs);
}

export function pipelineRoute(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { store: QueryStore; now: () => number }): void {
  addRoute(
    app,
    routes,
    {
      method: 'get',
      path: '/api/v1/pipeline',
      tag: 'pipeline',
      role: 'read',
      summary: "The pipeline's backlog per stage, the judge's queue and rate limit, the recent scoring rate and an estimate of when the waiting units are scored (deployment-wide, not per project).",
      responses: { 200: { description: 'the backlog', schema: PipelineAnswerSchema } },
    },
    async () => ({ status: 200, body: await readPipeline(deps.store, deps.now()) }),
  );
}
