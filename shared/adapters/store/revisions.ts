import { createHash } from 'node:crypto';
import { PermanentError } from '../../runtime/errors/index.ts';
import type { Logger } from '../../runtime/logging/index.ts';
import { canonicalJson, type Score, type Unit } from '../../contracts/schemas/index.ts';
import type { ScoredUnit, UnitRevision, UnitWriteResult } from './contract.ts';
import { DEFAULT_PROJECT } from './conditions.ts';
import { jsonToUnit, unitToRow, type UnitRow } from './rows.ts';

// Revisions, not rewrites: a unit whose content changes after it was stored (a late span re-opened
// its trace, a later trace re-opened its session) is kept as a new revision beside the earlier
// ones. Which revision a write is, and whether it may be written at all, is decided here once for
// both stores from what they already hold.

/** Hashes of what a revision holds: the whole content, and the parts a reader asks "did it change?" about. */
export interface UnitFingerprint {
  content_hash: string;
  model_output_hash: string;
  messages_hash: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The content hash leaves out `assembled_at_ms`: re-assembling the same spans (a replay after a
 * crash) is the same revision, not a new one.
 */
export function unitFingerprint(unit: Unit): UnitFingerprint {
  // The messages are most of a unit: written once, for their own hash and inside the content's.
  const messages = canonicalJson(unit.message_history);
  // One copy, not two: an undefined member is left out of canonical JSON as an absent one is.
  const content = { ...unit, assembled_at_ms: undefined, project: unit.project ?? DEFAULT_PROJECT };
  return {
    content_hash: sha256(canonicalJson(content, new Map([[unit.message_history, messages]]))),
    model_output_hash: sha256(JSON.stringify(unit.model_output)),
    messages_hash: sha256(messages),
  };
}

/** A revision a store already holds (its content hash; for rows migrated from before revisions, computed from their JSON). */
export interface KnownRevision {
  unit_id: string;
  project: string;
  revision: number;
  content_hash: string;
}

export type RevisionDecision =
  /** `fresh`: a content not stored before, a new revision; else an existing revision written again (a replay). */
  | { unit_id: string; project: string; revision: number; fresh: boolean; latest: boolean }
  | { unit_id: string; project: string; refused: string };

export function isRefused(d: RevisionDecision): d is Extract<RevisionDecision, { refused: string }> {
  return 'refused' in d;
}

/**
 * For units in write order: a content already stored is that revision again (idempotent replay,
 * even of an older revision: it does not become the latest); a new content is the next revision.
 * A unit id is owned by the project that stored it first: another project's unit with that id is
 * refused, never written over it. `latest` is decided after the whole batch (a batch may carry two
 * revisions of one unit).
 */
export function decideRevisions(units: readonly { unit_id: string; project: string; content_hash: string }[], known: readonly KnownRevision[]): RevisionDecision[] {
  const byUnit = new Map<string, { project: string; max: number; byHash: Map<string, number> }>();
  for (const k of known) {
    let entry = byUnit.get(k.unit_id);
    if (!entry) byUnit.set(k.unit_id, (entry = { project: k.project, max: 0, byHash: new Map() }));
    entry.max = Math.max(entry.max, k.revision);
    if (k.content_hash !== '' && !entry.byHash.has(k.content_hash)) entry.byHash.set(k.content_hash, k.revision);
  }
  const decided = units.map((u): RevisionDecision => {
    let entry = byUnit.get(u.unit_id);
    if (entry && entry.project !== u.project) {
      return { unit_id: u.unit_id, project: u.project, refused: `unit ${u.unit_id} belongs to project "${entry.project}"; a change sent with a key of project "${u.project}" is refused` };
    }
    if (!entry) byUnit.set(u.unit_id, (entry = { project: u.project, max: 0, byHash: new Map() }));
    const existing = entry.byHash.get(u.content_hash);
    if (existing !== undefined) return { unit_id: u.unit_id, project: u.project, revision: existing, fresh: false, latest: false };
    entry.max += 1;
    entry.byHash.set(u.content_hash, entry.max);
    return { unit_id: u.unit_id, project: u.project, revision: entry.max, fresh: true, latest: false };
  });
  return decided.map((d) => (isRefused(d) ? d : { ...d, latest: d.revision === byUnit.get(d.unit_id)!.max }));
}

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : Number(v));

/**
 * A stored revision row back to its metadata. Rows copied from before revisions existed carry no
 * hashes; theirs are computed from the unit's JSON (`legacy_json`, selected only for such rows).
 */
export function rowToUnitRevision(row: Record<string, unknown>, log: Logger): UnitRevision {
  let hashes: UnitFingerprint = {
    content_hash: typeof row.content_hash === 'string' ? row.content_hash : '',
    model_output_hash: typeof row.model_output_hash === 'string' ? row.model_output_hash : '',
    messages_hash: typeof row.messages_hash === 'string' ? row.messages_hash : '',
  };
  if (hashes.content_hash === '' && typeof row.legacy_json === 'string' && row.legacy_json !== '') {
    const unit = jsonToUnit(row.legacy_json, log);
    if (unit) hashes = unitFingerprint(unit);
  }
  return {
    unit_id: String(row.unit_id),
    project: String(row.project),
    revision: num(row.revision),
    assembled_at_ms: num(row.assembled_at_ms),
    stored_at_ms: num(row.stored_at_ms),
    span_count: num(row.span_count),
    ...hashes,
  };
}

/** The columns of a revision row, the same in both stores. */
export const UNIT_REVISION_COLUMNS = [
  'unit_id',
  'project',
  'revision',
  'content_hash',
  'model_output_hash',
  'messages_hash',
  'span_count',
  'assembled_at_ms',
  'stored_at_ms',
  'unit_json',
] as const;

export type UnitRevisionRow = Record<(typeof UNIT_REVISION_COLUMNS)[number], string | number>;

/** A validated unit row and its decision as the row of `unit_revisions`. */
export function unitRevisionRow(row: UnitRow, fingerprint: UnitFingerprint, revision: number, storedAtMs: number): UnitRevisionRow {
  return {
    unit_id: String(row.unit_id),
    project: String(row.project),
    revision,
    ...fingerprint,
    span_count: Number(row.span_count),
    assembled_at_ms: Number(row.assembled_at_ms),
    stored_at_ms: storedAtMs,
    unit_json: String(row.unit_json),
  };
}

/** Each unit validated (a bad one fails the batch as permanent) with its fingerprint. */
export function prepareUnits(units: readonly Unit[]): { row: UnitRow; fingerprint: UnitFingerprint }[] {
  return units.map((u) => {
    const row = unitToRow(u);
    return { row, fingerprint: unitFingerprint(u) };
  });
}

/** Decisions as the write results the contract promises. */
export function toWriteResult(d: RevisionDecision): UnitWriteResult {
  return isRefused(d) ? { unit_id: d.unit_id, refused: d.refused } : { unit_id: d.unit_id, revision: d.revision, fresh: d.fresh, latest: d.latest };
}

/** `writeUnits`: the results, or a PermanentError naming the first refused unit. */
export function throwIfRefused(results: UnitWriteResult[]): UnitWriteResult[] {
  const refused = results.find((r) => 'refused' in r);
  if (refused && 'refused' in refused) throw new PermanentError(refused.refused);
  return results;
}

/** Scores of each item stamped with the revision their unit became; refused items' scores are dropped. */
export function scoresOfRevisions(items: readonly ScoredUnit[], decisions: readonly RevisionDecision[]): Score[] {
  return items.flatMap((item, i) => {
    const d = decisions[i];
    return isRefused(d) ? [] : item.scores.map((s) => ({ ...s, unit_revision: d.revision }));
  });
}

