import type { Score } from '../../contracts/schemas/index.ts';
import type { ScoredUnit, UnitRevision, UnitWriteResult } from './contract.ts';
import { idChunks } from './id-chunks.ts';
import type { UnitRow } from './rows.ts';
import { decideRevisions, isRefused, prepareUnits, scoresOfRevisions, toWriteResult, type RevisionDecision, type UnitFingerprint } from './revisions.ts';

/** A unit of the batch that was not refused: its decided revision, its row and its hashes. */
interface AcceptedUnit {
  decision: Exclude<RevisionDecision, { refused: string }>;
  row: UnitRow;
  fingerprint: UnitFingerprint;
}

/** What a store writes for one `writeScoredUnits` call, decided the same way by every store. */
export interface ScoredUnitsPlan {
  /** The revisions stored before this write of the batch's units. */
  known: readonly UnitRevision[];
  /** The batch's units that were not refused, in batch order. */
  accepted: readonly AcceptedUnit[];
  /** The scores of accepted units, each stamped with the revision its unit became. */
  scores: Score[];
  storedAtMs: number;
}

/** The store-specific half of `writeScoredUnits`; `C` is what its steps share (DuckDB: the connection). */
export interface ScoredUnitsWriter<C> {
  /**
   * Runs `body` once the schema is in place, with no other write of this store deciding revisions
   * at the same time (they are decided from what is stored).
   */
  exclusive<T>(body: (context: C) => Promise<T>): Promise<T>;
  /** Stored revisions of up to 1,000 unit ids. */
  readRevisions(context: C, unitIds: readonly string[]): Promise<UnitRevision[]>;
  write(context: C, plan: ScoredUnitsPlan): Promise<void>;
}

/** Stored revisions of the given units, read in parts (each id once). */
export async function knownRevisions<C>(context: C, unitIds: readonly string[], read: ScoredUnitsWriter<C>['readRevisions']): Promise<UnitRevision[]> {
  const out: UnitRevision[] = [];
  for (const part of idChunks(unitIds)) out.push(...(await read(context, part)));
  return out;
}

/**
 * `Store.writeScoredUnits` for every store: validate the units (a bad one fails the batch as
 * permanent), read what is stored of them, decide each one's revision (a content stored before is
 * that revision again; another project's unit id is refused), then let the store write the plan.
 */
export async function writeScoredUnitsWith<C>(items: readonly ScoredUnit[], writer: ScoredUnitsWriter<C>): Promise<UnitWriteResult[]> {
  if (items.length === 0) return [];
  const prepared = prepareUnits(items.map((i) => i.unit));
  return writer.exclusive(async (context) => {
    const known = await knownRevisions(context, prepared.map((p) => String(p.row.unit_id)), (c, ids) => writer.readRevisions(c, ids));
    const decisions = decideRevisions(
      prepared.map((p) => ({ unit_id: String(p.row.unit_id), project: String(p.row.project), content_hash: p.fingerprint.content_hash })),
      known,
    );
    const accepted: AcceptedUnit[] = [];
    decisions.forEach((decision, i) => {
      if (!isRefused(decision)) accepted.push({ decision, ...prepared[i] });
    });
    await writer.write(context, { known, accepted, scores: scoresOfRevisions(items, decisions), storedAtMs: Date.now() });
    return decisions.map(toWriteResult);
  });
}
