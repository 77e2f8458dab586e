import type { Score } from '../../../contracts/schemas/index.ts';
import type { UnitMetricQuery, UnitMetricRow } from '../../../adapters/store/unit-metrics.ts';
import type { AggregateQuery, DocQuery, QueryStore, ScoreAggregate, ScoreFilters, ScoreQuery, StoredDoc, UnitQuery, UnitSummary, ValueCount } from '../../../adapters/store/contract.ts';

/** A score as the fake keeps it: the stored row and the project it belongs to. */
export type ProjectScore = Score & { project?: string };

type FakeStoreMethod = 'aggregateScores' | 'queryScores' | 'putDoc' | 'getDoc' | 'listDocs' | 'deleteDoc';

/**
 * An in-memory `QueryStore` (plus `queryScores`) with the semantics the contract promises: filters,
 * aggregates over the unit end time, one score per (unit, check, check version), docs keyed by
 * (kind, project, id), newest first. For tests of the alerter and the alert routes; the real
 * stores are DuckDB and ClickHouse.
 */
export interface InMemoryQueryStore extends QueryStore {
  unitMetrics(query: UnitMetricQuery): Promise<UnitMetricRow[]>;
  queryScores(query: ScoreQuery & ScoreFilters): Promise<Score[]>;
  addScores(scores: readonly ProjectScore[]): void;
  clearScores(): void;
  /** Calls per method, for asserting how many round trips an evaluation costs. */
  calls: Record<FakeStoreMethod, number>;
  /** Makes the next calls of a method fail (e.g. a store timeout). */
  failNext(method: FakeStoreMethod, error: Error, times?: number): void;
  docs(): StoredDoc[];
}

function matches(s: ProjectScore, f: ScoreFilters): boolean {
  return (
    (f.project === undefined || (s.project ?? 'default') === f.project) &&
    (f.check === undefined || s.check === f.check) &&
    (f.checkVersion === undefined || s.check_version === f.checkVersion) &&
    (f.agent === undefined || s.agent_name === f.agent) &&
    (f.agentVersion === undefined || s.agent_version === f.agentVersion) &&
    (f.environment === undefined || s.environment === f.environment) &&
    (f.service === undefined || s.service === f.service) &&
    (f.unitKind === undefined || s.unit_kind === f.unitKind) &&
    (f.status === undefined || s.status === f.status) &&
    (f.passed === undefined || (s.status === 'ok' && s.passed === f.passed)) &&
    (f.method === undefined || s.method === f.method) &&
    (!f.judgeOnly || s.method === 'model' || s.method === 'hybrid')
  );
}

export function createInMemoryQueryStore(): InMemoryQueryStore {
  const scores = new Map<string, ProjectScore>();
  const docs = new Map<string, StoredDoc>();
  const failures = new Map<FakeStoreMethod, { error: Error; times: number }>();
  const calls: Record<FakeStoreMethod, number> = { aggregateScores: 0, queryScores: 0, putDoc: 0, getDoc: 0, listDocs: 0, deleteDoc: 0 };
  const docKey = (kind: string, project: string, id: string): string => JSON.stringify([kind, project, id]);

  function enter(method: FakeStoreMethod): void {
    calls[method]++;
    const f = failures.get(method);
    if (f && f.times > 0) {
      f.times--;
      throw f.error;
    }
  }

  return {
    calls,
    addScores(list) {
      for (const s of list) scores.set(JSON.stringify([s.project ?? 'default', s.unit_id, s.check, s.check_version]), s);
    },
    clearScores() {
      scores.clear();
    },
    failNext(method, error, times = 1) {
      failures.set(method, { error, times });
    },
    docs: () => [...docs.values()],

    async queryScores(query) {
      enter('queryScores');
      const rows = [...scores.values()]
        .filter((s) => matches(s, query) && (query.unitId === undefined || s.unit_id === query.unitId))
        .filter((s) => (query.fromMs === undefined || s.created_at_ms >= query.fromMs) && (query.toMs === undefined || s.created_at_ms < query.toMs))
        .sort((a, b) => b.created_at_ms - a.created_at_ms || a.unit_id.localeCompare(b.unit_id));
      return Promise.resolve(rows.slice(0, query.limit ?? 100));
    },
    async aggregateScores(query: AggregateQuery) {
      enter('aggregateScores');
      const groups = new Map<string, { agg: ScoreAggregate; lagSum: number; lagN: number }>();
      for (const s of scores.values()) {
        if (!matches(s, query)) continue;
        if (query.fromMs !== undefined && s.unit_end_time_ms < query.fromMs) continue;
        if (query.toMs !== undefined && s.unit_end_time_ms >= query.toMs) continue;
        const t = query.bucketMs ? Math.floor(s.unit_end_time_ms / query.bucketMs) * query.bucketMs : null;
        const key = `${s.check}\u0000${t}`;
        let g = groups.get(key);
        if (!g) {
          g = { agg: { check: s.check, t, total: 0, n: 0, passed: 0, judged: 0, valued: 0, value_sum: 0, value_sq_sum: 0, error_count: 0, not_run_count: 0, mean_lag_ms: null }, lagSum: 0, lagN: 0 };
          groups.set(key, g);
        }
        const a = g.agg;
        a.total++;
        g.lagSum += s.created_at_ms - s.unit_end_time_ms;
        g.lagN++;
        if (s.status === 'error') a.error_count++;
        if (s.status === 'not_run') a.not_run_count++;
        if (s.status !== 'ok') continue;
        a.n++;
        if (s.passed !== null) a.judged++;
        if (s.passed === true) a.passed++;
        if (s.value !== null) {
          a.valued++;
          a.value_sum += s.value;
          a.value_sq_sum += s.value * s.value;
        }
      }
      return Promise.resolve([...groups.values()].map((g) => ({ ...g.agg, mean_lag_ms: g.lagN > 0 ? g.lagSum / g.lagN : null })).sort((a, b) => a.check.localeCompare(b.check) || (a.t ?? 0) - (b.t ?? 0)));
    },
    valueCounts(): Promise<ValueCount[]> {
      return Promise.reject(new Error('valueCounts is not implemented by the in-memory fake'));
    },
    listUnits(_query: UnitQuery): Promise<UnitSummary[]> {
      return Promise.reject(new Error('listUnits is not implemented by the in-memory fake'));
    },
    // Unit metrics are computed in SQL: tests of metric rules use a real store (test/integration/alerts).
    unitMetrics(_query: UnitMetricQuery): Promise<UnitMetricRow[]> {
      return Promise.reject(new Error('unitMetrics is not implemented by the in-memory fake'));
    },
    async putDoc(doc) {
      enter('putDoc');
      const key = docKey(doc.kind, doc.project, doc.id);
      const existing = docs.get(key);
      // Last write wins unless it is older (updated_at_ms orders versions).
      if (!existing || existing.updated_at_ms <= doc.updated_at_ms) docs.set(key, structuredClone(doc));
      return Promise.resolve();
    },
    async getDoc(kind, project, id) {
      enter('getDoc');
      const d = docs.get(docKey(kind, project, id));
      return Promise.resolve(d ? structuredClone(d) : null);
    },
    async listDocs(query: DocQuery) {
      enter('listDocs');
      const rows = [...docs.values()]
        .filter((d) => d.kind === query.kind && (query.project === undefined || d.project === query.project))
        .filter((d) => query.beforeMs === undefined || d.updated_at_ms < query.beforeMs)
        .sort((a, b) => b.updated_at_ms - a.updated_at_ms);
      return Promise.resolve(rows.slice(0, Math.min(query.limit ?? 1_000, 10_000)).map((d) => structuredClone(d)));
    },
    async deleteDoc(kind, project, id) {
      enter('deleteDoc');
      docs.delete(docKey(kind, project, id));
      return Promise.resolve();
    },
  };
}
