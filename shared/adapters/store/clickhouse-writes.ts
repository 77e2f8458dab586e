import { createSerialQueue } from '../../runtime/flow/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import type { Score } from '../../contracts/schemas/index.ts';
import type { ClickHouseConnection } from './clickhouse-connection.ts';
import type { ScoredUnit, UnitRevision, UnitWriteResult } from './contract.ts';
import { SCORE_FIELDS, UNIT_COLUMNS, scoreToRow } from './rows.ts';
import { UNIT_REVISION_COLUMNS, rowToUnitRevision, unitRevisionRow } from './revisions.ts';
import { knownRevisions, writeScoredUnitsWith, type ScoredUnitsPlan } from './scored-unit-write.ts';
import { joinSql, sql } from './sql-quote.ts';
import { UNIT_TIMES, UNIT_TIMES_COLUMNS } from './clickhouse-unit-times.ts';

// `check` is a keyword (CHECK TABLE); quoting it everywhere keeps the SQL unambiguous.
export const col = (name: string): string => (name === 'check' ? '`check`' : name);
const SCORE_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', ...SCORE_FIELDS.map(col)];
const UNIT_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', 'revision', ...UNIT_COLUMNS.map(col)];
export const UNIT_REVISION_INSERT_COLUMNS: [string, ...string[]] = ['write_seq', ...UNIT_REVISION_COLUMNS];
// Rows migrated from before revisions carry no hashes: their JSON is read to compute them.
export const REVISION_SELECT = sql`unit_id, project, revision, content_hash, model_output_hash, messages_hash, span_count, assembled_at_ms, stored_at_ms, if(content_hash = '', unit_json, '') AS legacy_json`;

const unitTimesRow = (r: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(UNIT_TIMES_COLUMNS.map((c) => [c, r[c]]));

export interface ClickHouseWritesDeps {
  connection: ClickHouseConnection;
  /** Brings the schema up to date (once); every write waits for it. */
  migrate: () => Promise<void>;
  /** Stamps each row: a later row of a key wins on read and merge. */
  nextWriteSeq: () => number;
  /** Whether `units` rows are also written to the explorer's time table (known once migrated). */
  hasUnitTimes: () => boolean;
  log: Logger;
}

/**
 * The ClickHouse store's writes of units and scores. Rows are only inserted (ReplacingMergeTree
 * keeps a key's row with the highest version once merged; reads use FINAL or argMax).
 */
export function createClickHouseWrites(deps: ClickHouseWritesDeps) {
  const { connection, migrate, nextWriteSeq, hasUnitTimes, log } = deps;
  const { db, select, insert } = connection;

  // Revisions are decided from what is stored, so two writes of this process never decide at once.
  // (Across processes they do not meet: units are keyed by unit id on the bus, so one scorer at a
  // time handles a unit.)
  const writes = createSerialQueue();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => writes.run(fn);

  const readRevisions = async (_: void, part: readonly string[]): Promise<UnitRevision[]> => {
    const rows = await select('knownRevisions', sql`SELECT ${REVISION_SELECT} FROM ${db}.unit_revisions WHERE unit_id IN (${joinSql(part.map((id) => sql`${id}`), ', ')})`);
    return rows.map((r) => rowToUnitRevision(r, log));
  };

  /** `latest`: the latest revision of units already known (from this write); the others are read. */
  async function writeScores(scores: readonly Score[], latest: Map<string, number>): Promise<void> {
    if (scores.length === 0) return;
    const rows = scores.map(scoreToRow);
    await migrate();
    const unknown = rows.map((r) => String(r.unit_id)).filter((id) => !latest.has(id));
    if (unknown.length > 0) for (const k of await knownRevisions(undefined, unknown, readRevisions)) latest.set(k.unit_id, Math.max(latest.get(k.unit_id) ?? 0, k.revision));
    // Sequence numbers in batch order: a later element for the same key wins on read and merge.
    const stamped = rows.map((r) => ({
      ...r,
      unit_revision: Number(r.unit_revision ?? latest.get(String(r.unit_id)) ?? 1),
      passed: r.passed === null ? null : r.passed ? 1 : 0,
      write_seq: nextWriteSeq(),
    }));
    // Only scores of a unit's latest revision are its scores; a replayed older revision stays in the history.
    const current = stamped.filter((r) => r.unit_revision >= (latest.get(String(r.unit_id)) ?? 0));
    await Promise.all([insert('writeScores', 'score_revisions', SCORE_INSERT_COLUMNS, stamped), current.length > 0 ? insert('writeScores', 'scores', SCORE_INSERT_COLUMNS, current) : null]);
  }

  /** Writes a plan of `writeScoredUnits`: new revisions, the units whose latest revision changed, and the scores. */
  async function writePlan(plan: ScoredUnitsPlan): Promise<void> {
    const { known, storedAtMs } = plan;
    const revisionRows: Record<string, unknown>[] = [];
    const unitRows: Record<string, unknown>[] = [];
    const latest = new Map<string, number>();
    const assembledBefore = new Map<string, number>();
    for (const k of known) assembledBefore.set(k.unit_id, Math.max(assembledBefore.get(k.unit_id) ?? 0, k.assembled_at_ms));
    for (const { decision: d, row, fingerprint } of plan.accepted) {
      latest.set(d.unit_id, Math.max(latest.get(d.unit_id) ?? 0, d.revision));
      if (d.fresh) revisionRows.push({ ...unitRevisionRow(row, fingerprint, d.revision, storedAtMs), write_seq: nextWriteSeq() });
      // The units table keeps, once merged, the row with the highest assembled_at_ms (its engine's
      // version): a newer revision's row carries one above every earlier revision's, even when it was
      // assembled earlier (another assembler, a skewed clock). The unit's own time stays in its JSON.
      const version = Math.max(Number(row.assembled_at_ms), (assembledBefore.get(d.unit_id) ?? -1) + 1);
      assembledBefore.set(d.unit_id, Math.max(assembledBefore.get(d.unit_id) ?? 0, version));
      if (d.latest) unitRows.push({ ...row, assembled_at_ms: version, revision: d.revision, truncated: row.truncated ? 1 : 0, write_seq: nextWriteSeq() });
    }
    for (const k of known) latest.set(k.unit_id, Math.max(latest.get(k.unit_id) ?? 0, k.revision));
    // The inserts run at once (one round trip's wait, not four). Any of them failing fails the
    // write, and its retry (the same content) decides the same revisions again: a revision already in
    // the history is found by its hash, one that is not gets the same next number.
    await Promise.all([
      revisionRows.length > 0 ? insert('writeUnitRevisions', 'unit_revisions', UNIT_REVISION_INSERT_COLUMNS, revisionRows) : null,
      unitRows.length > 0 ? insert('writeUnits', 'units', UNIT_INSERT_COLUMNS, unitRows) : null,
      unitRows.length > 0 && hasUnitTimes() ? insert('writeUnitTimes', UNIT_TIMES, [...UNIT_TIMES_COLUMNS], unitRows.map(unitTimesRow)) : null,
      writeScores(plan.scores, latest),
    ]);
  }

  return {
    writeScoredUnits: (items: readonly ScoredUnit[]): Promise<UnitWriteResult[]> =>
      writeScoredUnitsWith<void>(items, {
        exclusive: (body) =>
          exclusive(async () => {
            await migrate();
            return body();
          }),
        readRevisions,
        write: (_, plan) => writePlan(plan),
      }),
    writeScores: (scores: readonly Score[]): Promise<void> => exclusive(() => writeScores(scores, new Map())),
  };
}
