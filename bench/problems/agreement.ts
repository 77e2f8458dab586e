// How a grouping agrees with labels: per label, the problem holding most of its units, that
// problem's purity (its units with the label / all its units) and the label's coverage (its units in
// that problem / all its units); and the adjusted Rand index (Hubert and Arabie 1985) of the two
// partitions.

export interface LabelFit {
  label: string;
  units: number;
  problem: string | null;
  /** Units of the label in its problem. */
  inProblem: number;
  /** All units of that problem (labelled or not). */
  problemUnits: number;
  purity: number;
  coverage: number;
}

const pairs = (n: number): number => (n * (n - 1)) / 2;

/** `assigned`: unit → problem id (null: in no problem); `labels`: unit → label (units without one are left out of the fits but count in the problems' sizes). */
export function labelFits(assigned: ReadonlyMap<string, string | null>, labels: ReadonlyMap<string, string>): LabelFit[] {
  const size = new Map<string, number>();
  for (const p of assigned.values()) if (p !== null) size.set(p, (size.get(p) ?? 0) + 1);
  const byLabel = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const [unit, label] of labels) {
    totals.set(label, (totals.get(label) ?? 0) + 1);
    const p = assigned.get(unit) ?? null;
    if (p === null) continue;
    const m = byLabel.get(label) ?? new Map<string, number>();
    m.set(p, (m.get(p) ?? 0) + 1);
    byLabel.set(label, m);
  }
  return [...totals.keys()].sort().map((label) => {
    const counts = [...(byLabel.get(label) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const [problem, inProblem] = counts[0] ?? [null, 0];
    const problemUnits = problem ? (size.get(problem) ?? 0) : 0;
    const units = totals.get(label)!;
    return { label, units, problem, inProblem, problemUnits, purity: problemUnits ? inProblem / problemUnits : 0, coverage: inProblem / units };
  });
}

/** Adjusted Rand index between the problems and the labels over the labelled units (a unit in no problem is a cluster of its own). */
export function adjustedRandIndex(assigned: ReadonlyMap<string, string | null>, labels: ReadonlyMap<string, string>): number {
  const table = new Map<string, number>();
  const rows = new Map<string, number>();
  const cols = new Map<string, number>();
  let n = 0;
  for (const [unit, label] of labels) {
    const p = assigned.get(unit) ?? `alone:${unit}`;
    const cell = `${p}\u0000${label}`;
    table.set(cell, (table.get(cell) ?? 0) + 1);
    rows.set(p, (rows.get(p) ?? 0) + 1);
    cols.set(label, (cols.get(label) ?? 0) + 1);
    n++;
  }
  const index = [...table.values()].reduce((s, x) => s + pairs(x), 0);
  const a = [...rows.values()].reduce((s, x) => s + pairs(x), 0);
  const b = [...cols.values()].reduce((s, x) => s + pairs(x), 0);
  const expected = (a * b) / pairs(n);
  const max = (a + b) / 2;
  return max === expected ? 1 : (index - expected) / (max - expected);
}
