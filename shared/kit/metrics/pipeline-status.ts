import { z } from 'zod';
import type { QueryStore } from '../../adapters/store/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';

// What each pipeline process says about its own backlog, written to the store every few seconds
// as a small doc, so that the API reads the same thing whether the stages share its process (the
// embedded mode) or run elsewhere (Kafka). A process that stops deletes its doc; one that died
// leaves a doc the reader ignores once it is stale, and the next process to start removes it.

export const PIPELINE_STATUS_KIND = 'pipeline_status';
/** Not a user's project: the pipeline is one per deployment. */
export const PIPELINE_STATUS_PROJECT = '_pipeline';
const DEFAULT_STATUS_INTERVAL_MS = 10_000;
/** The scoring rate is the units scored over this much of the recent past. */
const RATE_WINDOW_MS = 5 * 60_000;
/** Docs of processes silent this long are removed at the start of another. */
const LEFTOVER_MS = 60 * 60_000;

/** Where records wait: spans for the trace assembler, units for the scorer, units for the session router, sessions for the aggregator. */
export const STAGES = ['assemble', 'score', 'route', 'sessions'] as const;
export type Stage = (typeof STAGES)[number];

const StageBacklogSchema = z.object({
  stage: z.enum(STAGES),
  topic: z.string(),
  group: z.string().nullable(),
  waiting: z.number().int().nonnegative(),
  /** In process: how long the oldest record waiting has waited (ms); absent on Kafka (its lag is in records). */
  lag_ms: z.number().nonnegative().nullable().optional(),
  /** The last measurement failed (Kafka unreachable): `waiting` is the last known. */
  error: z.string().nullable(),
});
export type StageBacklog = z.infer<typeof StageBacklogSchema>;

const JudgeQueueSchema = z.object({
  rate_per_minute: z.number().nonnegative(),
  concurrency: z.number().int().nonnegative(),
  in_flight: z.number().int().nonnegative(),
  waiting: z.number().int().nonnegative(),
});
type JudgeQueue = z.infer<typeof JudgeQueueSchema>;

/** Conversations the session aggregator holds open: each becomes a session unit `idle_ms` after its last trace. */
const OpenSessionsSchema = z.object({
  count: z.number().int().nonnegative(),
  idle_ms: z.number().nonnegative(),
});
type OpenSessions = z.infer<typeof OpenSessionsSchema>;

/** A scorer's sending of its scores as evaluation records (TRACECHECK_EXPORT_OTLP_ENDPOINT), counted since it started. */
const EvaluationExportStatusSchema = z.object({
  protocol: z.string(),
  endpoint: z.string(),
  sent: z.number().int().nonnegative(),
  rejected: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  dropped: z.number().int().nonnegative(),
  retries: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  last_error: z.string().nullable(),
  last_error_at_ms: z.number().nullable(),
});
export type EvaluationExportStatus = z.infer<typeof EvaluationExportStatusSchema>;

export const PipelineStatusSchema = z.object({
  instance: z.string(),
  services: z.array(z.string()),
  written_at_ms: z.number(),
  interval_ms: z.number().positive(),
  stages: z.array(StageBacklogSchema),
  judge: JudgeQueueSchema.nullable(),
  /** Units scored per minute over the last RATE_WINDOW_MS (null: this process does not score). */
  scored_per_minute: z.number().nonnegative().nullable(),
  /** Absent in docs of processes that do not aggregate sessions. */
  open_sessions: OpenSessionsSchema.nullable().optional(),
  /** Absent in docs of processes that send no evaluation records. */
  evaluation_export: EvaluationExportStatusSchema.nullable().optional(),
});
export type PipelineStatus = z.infer<typeof PipelineStatusSchema>;

interface PipelineStatusSources {
  stages(): readonly StageBacklog[];
  judge(): JudgeQueue | null;
  /** Units this process has scored since it started; null when it does not score. */
  unitsScored(): Promise<number | null>;
  /** The conversations this process holds open; null when it runs no session aggregator. */
  openSessions?(): OpenSessions | null;
  /** What this process's evaluation exporter has done; null when it sends none. */
  evaluationExport?(): EvaluationExportStatus | null;
}

export interface PipelineStatusReporterOptions {
  store: Pick<QueryStore, 'putDoc' | 'listDocs' | 'deleteDoc'>;
  instance: string;
  services: readonly string[];
  sources: PipelineStatusSources;
  nowMs: () => number;
  log: Logger;
  intervalMs?: number;
}

/** Units per minute from (time, running total) samples over the rate window; null with fewer than two. */
export function ratePerMinute(samples: ReadonlyArray<{ at: number; total: number }>): number | null {
  if (samples.length < 2) return null;
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (last.at <= first.at) return null;
  return ((last.total - first.total) / (last.at - first.at)) * 60_000;
}

export function createPipelineStatusReporter(o: PipelineStatusReporterOptions) {
  const intervalMs = o.intervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
  const log = o.log.child({ component: 'pipeline-status' });
  const samples: Array<{ at: number; total: number }> = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function write(): Promise<void> {
    const at = o.nowMs();
    const total = await o.sources.unitsScored();
    if (total !== null) {
      samples.push({ at, total });
      while (samples.length > 2 && samples[1].at <= at - RATE_WINDOW_MS) samples.shift();
    }
    const rate = total === null ? null : ratePerMinute(samples);
    const body: PipelineStatus = {
      instance: o.instance,
      services: [...o.services],
      written_at_ms: at,
      interval_ms: intervalMs,
      stages: [...o.sources.stages()],
      judge: o.sources.judge(),
      scored_per_minute: total === null ? null : (rate ?? 0),
      open_sessions: o.sources.openSessions?.() ?? null,
      evaluation_export: o.sources.evaluationExport?.() ?? null,
    };
    await o.store.putDoc({ kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, id: o.instance, body, updated_at_ms: at });
  }

  const tick = (): Promise<void> =>
    (running ??= write()
      .catch((err: unknown) => log.debug({ err }, 'writing the pipeline status failed'))
      .finally(() => (running = null)));

  return {
    name: 'pipeline-status',
    /** One write now (tests call it instead of waiting for the timer). */
    tick,
    async start(): Promise<void> {
      const before = o.nowMs() - LEFTOVER_MS;
      const leftovers = await o.store.listDocs({ kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, beforeMs: before }).catch(() => []);
      await Promise.all(leftovers.map((d) => o.store.deleteDoc(PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, d.id).catch(() => undefined)));
      await tick();
      timer = setInterval(() => void tick(), intervalMs);
      timer.unref();
    },
    async shutdown(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
      await o.store.deleteDoc(PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, o.instance).catch(() => undefined);
    },
  };
}

export type PipelineStatusReporter = ReturnType<typeof createPipelineStatusReporter>;
