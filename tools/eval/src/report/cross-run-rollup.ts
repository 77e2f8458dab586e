import type { RunResult } from '../result-types.ts';
import type { ReportTable } from './table.ts';

/** One prompt × reference across every run (and every model/parameter variant) given. */
export interface CrossRunRow {
  prompt: string;
  reference: string;
  runs: number;
  tries: number;
  passes: number;
  fails: number;
  /** passes / tries, 0–1. */
  passRate: number;
  rowsPassed: number;
  rowsFailed: number;
  rowsSkipped: number;
}

/** Tries and verdicts summed per prompt × reference over runs: how stable a reference is across runs. */
export function crossRunRollup(runs: readonly RunResult[]): CrossRunRow[] {
  const rows = new Map<string, CrossRunRow & { runIds: Set<string> }>();
  for (const run of runs) {
    for (const prompt of run.prompts) {
      for (const row of prompt.rows) {
        const key = JSON.stringify([prompt.name, row.reference.id]);
        const acc = rows.get(key) ?? { prompt: prompt.name, reference: row.reference.id, runs: 0, tries: 0, passes: 0, fails: 0, passRate: 0, rowsPassed: 0, rowsFailed: 0, rowsSkipped: 0, runIds: new Set<string>() };
        acc.runIds.add(run.runId);
        const c = row.counts;
        acc.tries += c.n_tries;
        acc.passes += c.num_passes + c.num_skip_passes;
        acc.fails += c.num_fails + c.num_skip_fails;
        if (row.status === 'pass') acc.rowsPassed++;
        else if (row.status === 'fail') acc.rowsFailed++;
        else acc.rowsSkipped++;
        rows.set(key, acc);
      }
    }
  }
  return [...rows.values()].map(({ runIds, ...r }) => ({ ...r, runs: runIds.size, passRate: r.tries === 0 ? 0 : r.passes / r.tries }));
}

/** The roll-up as a report table (text, Markdown and HTML renderers take it). */
export function rollupTable(rows: readonly CrossRunRow[]): ReportTable {
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  return {
    title: 'roll-up across runs (per prompt × reference)',
    header: ['prompt', 'reference', 'runs', 'tries', 'passes', 'fails', 'pass rate', 'rows passed', 'rows failed', 'rows skipped'],
    rows: rows.map((r) => [r.prompt, r.reference, String(r.runs), String(r.tries), String(r.passes), String(r.fails), pct(r.passRate), String(r.rowsPassed), String(r.rowsFailed), String(r.rowsSkipped)]),
    statuses: rows.map((r) => (r.rowsFailed > 0 ? 'fail' : r.rowsPassed > 0 ? 'pass' : 'skip')),
  };
}
