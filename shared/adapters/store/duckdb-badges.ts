import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { idChunks } from './id-chunks.ts';
import { rowToBadge, type ScoreBadge } from './explore.ts';

// The explorer's score badges on DuckDB: `units.score_badges` holds each unit's scores (those in
// `scores`) as a JSON array, so a page of units carries its badges. Looking them up in `scores`
// instead scanned its whole unit_id column for every page: DuckDB has no index there (the tables
// keep none, see duckdb-schema.ts), and a page's scores are anywhere in it. The writes keep the
// column in step (writeBadges); units of earlier files are filled at start (BADGES_BACKFILL).

const BADGE_STRUCT = `{'check': s."check", 'check_version': s.check_version, 'status': s.status, 'passed': s.passed, 'value': s.value}`;

/** Fills units whose badges are unknown (NULL) from `scores`; a unit without scores gets `[]`. */
export const BADGES_BACKFILL = [
  `UPDATE units SET score_badges = b.badges FROM (
  SELECT s.unit_id, s.project, to_json(list(${BADGE_STRUCT} ORDER BY s."check", s.check_version))::VARCHAR AS badges
  FROM scores s WHERE s.unit_id IN (SELECT unit_id FROM units WHERE score_badges IS NULL) GROUP BY s.unit_id, s.project
) b WHERE units.score_badges IS NULL AND units.unit_id = b.unit_id AND units.project = b.project`,
  `UPDATE units SET score_badges = '[]' WHERE score_badges IS NULL`,
];

/** Marks the badges of units whose scores a retention cut is about to delete as unknown (BADGES_BACKFILL fills them again). */
export const badgesBeforeScoreCut = (scoreCondition: string): string => `UPDATE units SET score_badges = NULL WHERE unit_id IN (SELECT unit_id FROM scores WHERE ${scoreCondition})`;

export function parseBadges(text: unknown): ScoreBadge[] {
  if (typeof text !== 'string' || text === '') return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.map((b) => rowToBadge(b as Record<string, unknown>)) : [];
}

/** A score as it changes a unit's badges: its unit, and the badge. */
export interface BadgeScore {
  unit_id: string;
  check: string;
  check_version: string;
  status: string;
  passed: boolean | null;
  value: number | null;
}

export function scoresByUnit(scores: readonly BadgeScore[]): Map<string, BadgeScore[]> {
  const out = new Map<string, BadgeScore[]>();
  for (const s of scores) out.set(s.unit_id, [...(out.get(s.unit_id) ?? []), s]);
  return out;
}

const keyOf = (b: { check: string; check_version: string }): string => JSON.stringify([b.check, b.check_version]);

/**
 * The badges after `scores` (in write order, each of its unit's latest revision) replace those of
 * the same check and version in `before`, sorted by check and version as the lookup was.
 */
export function mergeBadges(before: readonly ScoreBadge[], scores: readonly BadgeScore[]): string {
  const byKey = new Map<string, ScoreBadge>(before.map((b) => [keyOf(b), b]));
  for (const s of scores) byKey.set(keyOf(s), { check: s.check, check_version: s.check_version, status: s.status, passed: s.passed, value: s.value });
  const sorted = [...byKey.values()].sort((a, b) => (a.check < b.check ? -1 : a.check > b.check ? 1 : a.check_version < b.check_version ? -1 : a.check_version > b.check_version ? 1 : 0));
  return JSON.stringify(sorted);
}

/** The stored badges of units (read before a write replaces their rows); NULL ones are read from `scores`. */
export async function storedBadges(c: DuckDBConnection, unitIds: readonly string[]): Promise<Map<string, ScoreBadge[]>> {
  const out = new Map<string, ScoreBadge[]>();
  const unknown: string[] = [];
  for (const ids of idChunks(unitIds)) {
    const marks = ids.map((_, j) => `$${j + 1}`).join(', ');
    const rows = (await c.runAndReadAll(`SELECT unit_id, score_badges FROM units WHERE unit_id IN (${marks})`, ids)).getRowObjectsJS();
    for (const r of rows) {
      if (r.score_badges === null) unknown.push((r.unit_id as string));
      else out.set((r.unit_id as string), parseBadges(r.score_badges));
    }
  }
  for (const ids of idChunks(unknown)) {
    const marks = ids.map((_, j) => `$${j + 1}`).join(', ');
    const rows = (await c.runAndReadAll(`SELECT unit_id, "check", check_version, status, passed, value FROM scores WHERE unit_id IN (${marks}) ORDER BY unit_id, "check", check_version`, ids)).getRowObjectsJS();
    for (const id of ids) out.set(id, []);
    for (const r of rows) out.get((r.unit_id as string))?.push(rowToBadge(r));
  }
  return out;
}

/** Sets the badges of stored units whose rows this write does not replace. */
export async function updateBadges(c: DuckDBConnection, badges: ReadonlyMap<string, string>): Promise<void> {
  const ids = [...badges.keys()];
  for (const part of idChunks(ids)) {
    const values: DuckDBValue[] = [];
    const pairs = part.map((id) => {
      values.push(id, badges.get(id) ?? '[]');
      return `($${values.length - 1}, $${values.length})`;
    });
    const inList = part.map((_, j) => `$${2 * j + 1}`).join(', ');
    await c.run(`UPDATE units SET score_badges = v.badges FROM (VALUES ${pairs.join(', ')}) v(id, badges) WHERE units.unit_id = v.id AND units.unit_id IN (${inList})`, values);
  }
}
