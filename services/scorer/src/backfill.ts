import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RunnableCheck } from '../../../shared/engines/checks/index.ts';
import { forEachLimited } from '../../../shared/runtime/flow/index.ts';
import { monitorApplies, type Monitor } from '../../../shared/engines/monitors/index.ts';
import type { Score } from '../../../shared/contracts/schemas/index.ts';
import type { Store, UnitCursor } from '../../../shared/adapters/store/index.ts';
import { scoreUnit, type ScoreUnitDeps } from './score-unit.ts';

export interface BackfillOptions extends Omit<ScoreUnitDeps, 'checks' | 'selectChecks'> {
  store: Store;
  check: RunnableCheck;
  /** Only this project's units (a project's own checks never score another's units). */
  project?: string;
  /** Only units this monitor applies to (filters and sample). */
  monitor?: Monitor;
  /** Bounds on the units' end time: inclusive, exclusive. `toMs` defaults to the start of the first run. */
  fromMs?: number;
  toMs?: number;
  /** Units read and scores written per step; the position is saved after each. Default 500. */
  pageSize?: number;
  /** Units scored at once. Default 8. */
  concurrency?: number;
  /** Stops after the current page (the position is saved; a rerun resumes). */
  signal?: AbortSignal;
  onProgress?: (p: BackfillProgress) => void;
  /** Starts over instead of resuming. */
  restart?: boolean;
}

export interface BackfillProgress {
  done: number;
  total: number;
  scored: number;
  skipped: number;
}

const PositionSchema = z.object({
  after: z.object({ end_time_ms: z.number(), unit_id: z.string() }).nullable(),
  to_ms: z.number(),
  total: z.number(),
  done: z.number(),
  scored: z.number(),
  skipped: z.number(),
  finished: z.boolean(),
});
type Position = z.infer<typeof PositionSchema>;

const POSITION_KIND = 'backfill';
const POSITION_PROJECT = 'default';

/** The position's id: the check version, the range asked for and the monitor. */
export function backfillId(o: Pick<BackfillOptions, 'check' | 'monitor' | 'fromMs' | 'toMs' | 'project'>): string {
  const parts = [o.check.name, o.check.version, String(o.fromMs ?? ''), String(o.toMs ?? ''), o.monitor ? `${o.monitor.project}/${o.monitor.name}` : '', ...(o.project !== undefined ? [o.project] : [])];
  return `${o.check.name}@${o.check.version}:${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 12)}`;
}

/**
 * Re-scores stored units with one check (e.g. its new version), newest unit first, a page at a
 * time: the page's scores are written in one idempotent batch (one score per unit, check and
 * version, however often it runs) and then the position is saved in the store, so an interrupted
 * run resumes after the last saved page.
 */
export async function runBackfill(options: BackfillOptions): Promise<BackfillProgress & { finished: boolean; id: string }> {
  const { store } = options;
  const id = backfillId(options);
  const pageSize = options.pageSize ?? 500;
  const stored = options.restart ? null : await store.getDoc(POSITION_KIND, POSITION_PROJECT, id);
  const parsed = stored ? PositionSchema.safeParse(stored.body) : null;
  const unitQuery = {
    ...(options.project !== undefined ? { project: options.project } : {}),
    ...(options.fromMs !== undefined ? { fromMs: options.fromMs } : {}),
    ...(options.monitor?.filters.agent !== undefined ? { agent: options.monitor.filters.agent } : {}),
    ...(options.monitor?.filters.agent_version !== undefined ? { agentVersion: options.monitor.filters.agent_version } : {}),
    ...(options.monitor?.filters.environment !== undefined ? { environment: options.monitor.filters.environment } : {}),
    ...(options.monitor?.filters.service !== undefined ? { service: options.monitor.filters.service } : {}),
    ...(options.monitor?.filters.unit_kind !== undefined ? { unitKind: options.monitor.filters.unit_kind } : {}),
  };
  let pos: Position;
  if (parsed?.success) pos = parsed.data;
  else {
    const toMs = options.toMs ?? options.nowMs();
    let total = 0;
    for (let after: UnitCursor | undefined; ; ) {
      const page = await store.listUnits({ ...unitQuery, toMs, limit: 10_000, ...(after ? { after } : {}) });
      total += page.length;
      if (page.length < 10_000) break;
      const last = page[page.length - 1];
      after = { end_time_ms: last.end_time_ms, unit_id: last.unit_id };
    }
    pos = { after: null, to_ms: toMs, total, done: 0, scored: 0, skipped: 0, finished: false };
  }
  const save = (): Promise<void> => store.putDoc({ kind: POSITION_KIND, project: POSITION_PROJECT, id, body: pos, updated_at_ms: options.nowMs() });
  const deps: ScoreUnitDeps = { ...options, checks: [options.check] };
  options.onProgress?.(pos);
  while (!pos.finished && !options.signal?.aborted) {
    const page = await store.listUnits({ ...unitQuery, toMs: pos.to_ms, limit: pageSize, ...(pos.after ? { after: pos.after } : {}) });
    const scores: Score[] = [];
    await forEachLimited(page, options.concurrency ?? 8, async (summary) => {
      const unit = await store.getUnit(summary.unit_id, options.project);
      if (!unit || (options.monitor && !monitorApplies(options.monitor, unit))) {
        pos.skipped += 1;
        return;
      }
      scores.push(...(await scoreUnit(unit, deps)));
      pos.scored += 1;
    });
    if (scores.length > 0) await store.writeScores(scores);
    pos.done += page.length;
    const last = page.at(-1);
    if (last) pos.after = { end_time_ms: last.end_time_ms, unit_id: last.unit_id };
    if (page.length < pageSize) pos.finished = true;
    await save();
    options.onProgress?.(pos);
  }
  return { ...pos, id };
}
