import type { Score } from '../../contracts/schemas/index.ts';
import type { ScoreQuery, Store } from '../../adapters/store/contract.ts';
import { idChunks } from '../../adapters/store/id-chunks.ts';
import { isSampled } from '../monitors/monitor.ts';
import type { ReviewQueue } from './schemas.ts';

type QueueStore = Pick<Store, 'queryScores' | 'getUnit'>;

/** Scored units a queue reads per evaluation at most (the store's page bound). */
const MAX_MATCHED = 10_000;
/** Units whose attributes are looked up at once. */
const LOOKUPS_AT_ONCE = 16;

/**
 * The queue's units with the score each is reviewed against, oldest scored first. A queue is
 * evaluated when read: every unit scored so far that its filter and sample take is in it (so units
 * enter as they are scored, and a queue made today takes in yesterday's units too), plus the units
 * added by id whatever the filter says.
 */
export async function queueItems(store: QueueStore, queue: ReviewQueue): Promise<Score[]> {
  const f = queue.filter;
  const query: ScoreQuery = { project: queue.project, check: f.check, limit: MAX_MATCHED };
  if (f.check_version !== undefined) query.checkVersion = f.check_version;
  if (f.status !== undefined) query.status = f.status;
  if (f.passed !== undefined) query.passed = f.passed;
  if (f.agent !== undefined) query.agent = f.agent;
  if (f.agent_version !== undefined) query.agentVersion = f.agent_version;
  if (f.environment !== undefined) query.environment = f.environment;
  if (f.service !== undefined) query.service = f.service;
  if (f.unit_kind !== undefined) query.unitKind = f.unit_kind;
  if (f.from_ms !== undefined) query.endFromMs = f.from_ms;
  if (f.to_ms !== undefined) query.endToMs = f.to_ms;
  let matched = (await store.queryScores(query)).filter((s) => isSampled(s.unit_id, queue.sample_rate));
  if (f.attributes && Object.keys(f.attributes).length > 0) matched = await withAttributes(store, queue.project, matched, f.attributes);
  const byUnit = new Map<string, Score>();
  for (const s of matched) if (!byUnit.has(s.unit_id)) byUnit.set(s.unit_id, s);
  // Units added by id: one query, in the store's id chunks (a queue made before the cap may hold more
  // ids, and long ids fill a query's text sooner).
  for (const ids of idChunks(queue.unit_ids.filter((id) => !byUnit.has(id)))) {
    const found = await store.queryScores({ project: queue.project, unitIds: ids, check: f.check, limit: MAX_MATCHED });
    // Newest first: the first score of a unit is the one it is reviewed against.
    for (const s of found) if (!byUnit.has(s.unit_id)) byUnit.set(s.unit_id, s);
  }
  return [...byUnit.values()].sort((a, b) => a.created_at_ms - b.created_at_ms || a.unit_id.localeCompare(b.unit_id));
}

async function withAttributes(store: QueueStore, project: string, scores: Score[], attributes: Record<string, string>): Promise<Score[]> {
  const out: Score[] = [];
  for (let i = 0; i < scores.length; i += LOOKUPS_AT_ONCE) {
    const batch = scores.slice(i, i + LOOKUPS_AT_ONCE);
    const units = await Promise.all(batch.map((s) => store.getUnit(s.unit_id, project)));
    batch.forEach((s, j) => {
      const attrs = units[j]?.attributes ?? {};
      if (Object.entries(attributes).every(([k, v]) => attrs[k] === v)) out.push(s);
    });
  }
  return out;
}

export interface QueuePosition {
  /** The unit to review next, or null when the reviewer has seen every unit. */
  unit_id: string | null;
  /** 1-based place of that unit in the queue (null with no unit). */
  position: number | null;
  total: number;
  /** Units this reviewer has reviewed. */
  reviewed: number;
}

/**
 * The next unit a reviewer has not reviewed, after `after` (a unit they skipped or just did) when
 * given, wrapping round to the start; `before` instead walks back to the previous unit, reviewed or not.
 */
export function nextInQueue(items: readonly Score[], reviewedByReviewer: ReadonlySet<string>, options: { after?: string; before?: string } = {}): QueuePosition {
  const total = items.length;
  const reviewed = items.filter((s) => reviewedByReviewer.has(s.unit_id)).length;
  const at = (i: number): QueuePosition => ({ unit_id: items[i].unit_id, position: i + 1, total, reviewed });
  if (options.before !== undefined) {
    const i = items.findIndex((s) => s.unit_id === options.before);
    return i > 0 ? at(i - 1) : total > 0 ? at(0) : { unit_id: null, position: null, total, reviewed };
  }
  const start = options.after === undefined ? 0 : items.findIndex((s) => s.unit_id === options.after) + 1;
  for (let k = 0; k < total; k++) {
    const i = (start + k) % total;
    if (!reviewedByReviewer.has(items[i].unit_id)) return at(i);
  }
  return { unit_id: null, position: null, total, reviewed };
}
