/**
 * What retention removes in one pass: rows written before `cutoffMs` (units and their revisions by
 * assembly time, scores and theirs by scoring time, documents of `docKinds` — alert history — by
 * their update time, the same columns ClickHouse's table TTL reads), of one project, or of every
 * project but `exceptProjects` (those with a retention of their own).
 */
export interface RetentionCut {
  cutoffMs: number;
  project?: string;
  exceptProjects?: readonly string[];
  docKinds: readonly string[];
}

/** Each table retention cleans, with its time column. */
export const RETENTION_TABLES: ReadonlyArray<{ table: string; column: string }> = [
  { table: 'units', column: 'assembled_at_ms' },
  { table: 'unit_revisions', column: 'assembled_at_ms' },
  { table: 'scores', column: 'created_at_ms' },
  { table: 'score_revisions', column: 'created_at_ms' },
];

export function checkCut(cut: RetentionCut): void {
  if (!Number.isSafeInteger(cut.cutoffMs) || cut.cutoffMs < 0) throw new Error(`retention cutoff must be a time in ms, got ${String(cut.cutoffMs)}`);
  if (cut.project !== undefined && cut.exceptProjects !== undefined) throw new Error('a retention cut names a project or the projects it leaves out, not both');
}
