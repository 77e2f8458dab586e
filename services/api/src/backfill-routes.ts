import type { Hono } from 'hono';
import { z } from 'zod';
import { PermanentError } from '../../../shared/runtime/errors/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { ErrorSchema, type RouteSpec } from './api-spec.ts';
import { addRoute, type ApiEnv } from './route.ts';

// Backfills run by the server for `tracecheck backfill` while `tracecheck up` holds the store:
// started by POST, watched by GET, stopped by DELETE (after the page in hand; the position is kept,
// so starting it again resumes). The process that wires the API decides how a backfill is made
// ready (its check, its monitor, its judge and sandbox); a job lives in this process's memory.

export interface BackfillFigures {
  done: number;
  total: number;
  scored: number;
  skipped: number;
}

export interface StartBackfill {
  project: string;
  check: string;
  monitor?: string;
  fromMs?: number;
  toMs?: number;
  restart: boolean;
}

export interface ReadyBackfill {
  id: string;
  check: string;
  version: string;
  run(signal: AbortSignal, onProgress: (p: BackfillFigures) => void): Promise<BackfillFigures & { finished: boolean }>;
}

/** Makes a backfill ready; throws a PermanentError naming what does not exist (400). */
export type PrepareBackfill = (req: StartBackfill) => Promise<ReadyBackfill>;

const JobSchema = z.object({
  id: z.string(),
  check: z.string(),
  version: z.string(),
  state: z.enum(['running', 'finished', 'stopped', 'failed']),
  done: z.number().int(),
  total: z.number().int(),
  scored: z.number().int(),
  skipped: z.number().int(),
  error: z.string().nullable(),
});
/** A backfill as the server reports it (what `tracecheck backfill` watches). */
export type BackfillJob = z.infer<typeof JobSchema>;

const BodySchema = z
  .object({
    check: z.string().min(1).max(200),
    monitor: z.string().min(1).max(200).optional(),
    from_ms: z.number().int().nonnegative().optional(),
    to_ms: z.number().int().nonnegative().optional(),
    restart: z.boolean().default(false),
  })
  .strict();

/** Jobs kept per process, finished ones dropped oldest first past this. */
const MAX_JOBS = 100;

export function backfillRoutes(app: Hono<ApiEnv>, routes: RouteSpec[], deps: { prepare: PrepareBackfill | null; log: Logger }): void {
  const jobs = new Map<string, { job: BackfillJob; stop: AbortController }>();
  const keyOf = (project: string, id: string): string => `${project}\u0000${id}`;
  const tag = 'backfill';

  function forget(): void {
    for (const [key, entry] of jobs) {
      if (jobs.size <= MAX_JOBS) return;
      if (entry.job.state !== 'running') jobs.delete(key);
    }
  }

  addRoute(
    app,
    routes,
    {
      method: 'post',
      path: '/api/v1/backfills',
      tag,
      role: 'admin',
      summary: "Starts re-scoring the project's stored units with the current version of a check (as `tracecheck backfill` does), in the server; resumes where a stopped one of the same check, version, range and monitor left off. Answers at once: watch it with GET.",
      body: BodySchema,
      responses: {
        202: { description: 'started, or already running', schema: JobSchema },
        400: { description: 'an unknown check or monitor', schema: ErrorSchema },
        503: { description: 'this API runs without a scorer (Kafka mode): run `tracecheck backfill` against ClickHouse instead', schema: ErrorSchema },
      },
    },
    async (c, { body }) => {
      const project = c.get('project');
      if (!deps.prepare) return { status: 503, body: { error: 'this API process does not score units, so it runs no backfill: run `tracecheck backfill` where the store is reachable (ClickHouse)' } };
      let ready: ReadyBackfill;
      try {
        ready = await deps.prepare({ project, check: body.check, restart: body.restart, ...(body.monitor !== undefined ? { monitor: body.monitor } : {}), ...(body.from_ms !== undefined ? { fromMs: body.from_ms } : {}), ...(body.to_ms !== undefined ? { toMs: body.to_ms } : {}) });
      } catch (err) {
        if (err instanceof PermanentError) return { status: 400, body: { error: `invalid request: ${err.message}` } };
        throw err;
      }
      const key = keyOf(project, ready.id);
      const running = jobs.get(key);
      if (running?.job.state === 'running') return { status: 202, body: running.job };
      const job: BackfillJob = { id: ready.id, check: ready.check, version: ready.version, state: 'running', done: 0, total: 0, scored: 0, skipped: 0, error: null };
      const stop = new AbortController();
      jobs.delete(key);
      jobs.set(key, { job, stop });
      forget();
      const figures = (p: BackfillFigures): void => {
        Object.assign(job, { done: p.done, total: p.total, scored: p.scored, skipped: p.skipped });
      };
      ready.run(stop.signal, figures).then(
        (result) => {
          figures(result);
          job.state = result.finished ? 'finished' : 'stopped';
        },
        (err: unknown) => {
          job.state = 'failed';
          job.error = err instanceof Error ? err.message : String(err);
          deps.log.warn({ err, project, backfill: job.id }, 'backfill failed');
        },
      );
      return { status: 202, body: job };
    },
  );

  const pathParams = z.object({ id: z.string().min(1).max(300) });
  addRoute(
    app,
    routes,
    { method: 'get', path: '/api/v1/backfills/{id}', tag, role: 'admin', summary: 'A backfill this server runs or ran: its state and figures.', pathParams, responses: { 200: { description: 'the backfill', schema: JobSchema }, 404: { description: 'no such backfill in this project', schema: ErrorSchema } } },
    (c, { params }) => {
      const entry = jobs.get(keyOf(c.get('project'), params.id));
      return Promise.resolve(entry ? { status: 200, body: entry.job } : { status: 404, body: { error: `no backfill "${params.id}" in this server` } });
    },
  );
  addRoute(
    app,
    routes,
    { method: 'delete', path: '/api/v1/backfills/{id}', tag, role: 'admin', summary: 'Stops a running backfill after the page in hand; the position is kept, so starting it again resumes.', pathParams, responses: { 200: { description: 'the backfill, stopping', schema: JobSchema }, 404: { description: 'no such backfill in this project', schema: ErrorSchema } } },
    (c, { params }) => {
      const entry = jobs.get(keyOf(c.get('project'), params.id));
      if (!entry) return Promise.resolve({ status: 404, body: { error: `no backfill "${params.id}" in this server` } });
      entry.stop.abort();
      return Promise.resolve({ status: 200, body: entry.job });
    },
  );
}
