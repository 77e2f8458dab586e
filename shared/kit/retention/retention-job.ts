import { Gauge } from 'prom-client';
import { z } from 'zod';
import type { Store } from '../../adapters/store/index.ts';
import type { Component } from '../../runtime/lifecycle/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { Metrics } from '../metrics/index.ts';

/** A project's own retention: a doc of this kind, id `retention`, in the project. */
export const RETENTION_DOC_KIND = 'retention';
export const RETENTION_DOC_ID = 'retention';
export const ProjectRetentionSchema = z.object({ days: z.number().int().min(1).max(36_500) });

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The days a project's rows are kept: its own retention, which may only shorten the deployment's
 * unless the operator allows longer (a retention stored before that rule is held to it here).
 */
function effectiveDays(own: number, deployment: number | null, allowLonger: boolean): number {
  return deployment === null || allowLonger ? own : Math.min(own, deployment);
}

export interface RetentionJobOptions {
  store: Store;
  /** TRACECHECK_RETENTION_DAYS; null: keep everything of projects without their own retention. */
  days: number | null;
  intervalMs: number;
  /** Document kinds removed with the rest (alert history). */
  docKinds: readonly string[];
  /** A project's own retention may be longer than `days` (TRACECHECK_RETENTION_ALLOW_LONGER); default: only shorter. */
  allowLonger?: boolean;
  now: () => number;
  log: Logger;
  metrics?: Metrics;
}

export type RetentionJob = Component & {
  /** One pass: every project with its own retention, then the rest; then the table sizes. */
  runOnce(): Promise<void>;
};

/**
 * Removes what is older than the retention, every `intervalMs`, and reports each table's bytes on
 * disk (`tracecheck_store_table_bytes`). A pass that fails is logged and tried again at the next.
 */
export function createRetentionJob(options: RetentionJobOptions): RetentionJob {
  const log = options.log.child({ component: 'retention' });
  const { store } = options;
  const gauge = options.metrics
    ? (options.metrics.registry.getSingleMetric('tracecheck_store_table_bytes') as Gauge<'table'> | undefined) ?? new Gauge({ name: 'tracecheck_store_table_bytes', help: 'Bytes on disk of each store table (ClickHouse: system.parts; DuckDB: the file shared out by table size)', labelNames: ['table'], registers: [options.metrics.registry] })
    : undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let stopped = false;

  async function projectRetentions(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const doc of await store.listDocs({ kind: RETENTION_DOC_KIND, limit: 10_000 })) {
      const parsed = ProjectRetentionSchema.safeParse(doc.body);
      if (parsed.success) out.set(doc.project, parsed.data.days);
      else log.warn({ project: doc.project }, 'stored retention does not parse; skipped');
    }
    return out;
  }

  async function pass(): Promise<void> {
    if (store.removeOlderThan) {
      const now = options.now();
      const own = await projectRetentions();
      for (const [project, asked] of own) {
        const days = effectiveDays(asked, options.days, options.allowLonger ?? false);
        await store.removeOlderThan({ cutoffMs: now - days * DAY_MS, project, docKinds: options.docKinds });
      }
      if (options.days !== null) {
        await store.removeOlderThan({ cutoffMs: now - options.days * DAY_MS, exceptProjects: [...own.keys()], docKinds: options.docKinds });
      }
      log.debug({ projects: own.size, days: options.days }, 'retention pass done');
    }
    if (gauge && store.tableBytes) {
      for (const [table, bytes] of Object.entries(await store.tableBytes())) gauge.set({ table }, bytes);
    }
  }

  function runOnce(): Promise<void> {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((err: unknown) => log.warn({ err }, 'retention pass failed; trying again at the next'))
        .finally(() => schedule(options.intervalMs));
    }, delayMs);
    timer.unref();
  }

  return {
    name: 'retention',
    start() {
      schedule(0);
      return Promise.resolve();
    },
    async shutdown() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    runOnce,
  };
}
