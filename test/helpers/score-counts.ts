import { Kafka, logLevel } from 'kafkajs';
// What a fault test counts in ClickHouse: raw rows (a replay after a crash may write a score
// twice), rows after deduplication (FINAL: one per (check, unit, check version), what every query
// reads), and units with every configured check.

export interface ScoreCounts {
  rawRows: number;
  finalRows: number;
  distinctUnitChecks: number;
  /** Units whose scores (FINAL) cover exactly `checks` distinct checks. */
  completeUnits: number;
  unitsStored: number;
  /** Units (FINAL: the version every query reads) with another span count than `spansPerUnit`. */
  unitsWithOtherSpanCount: number;
  unitIds: Set<string>;
}

async function query(url: string, sql: string): Promise<string> {
  const res = await fetch(`${url}/?query=${encodeURIComponent(sql)}`, { method: 'POST', signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Counts of `database` (a plain identifier of the test's own). */
export async function countScores(url: string, database: string, checks: number, spansPerUnit: number, exclude: readonly string[] = []): Promise<ScoreCounts> {
  // Hex trace ids only (a probe's): nothing to quote.
  if (exclude.some((id) => !/^[0-9a-f]+$/.test(id))) throw new Error('exclude takes hex unit ids');
  const not = exclude.length === 0 ? '1' : `unit_id NOT IN (${exclude.map((id) => `'${id}'`).join(',')})`;
  const one = async (sql: string): Promise<number> => Number((await query(url, sql)).trim());
  const [rawRows, finalRows, distinctUnitChecks, completeUnits, unitsStored, unitsWithOtherSpanCount, ids] = await Promise.all([
    one(`SELECT count() FROM ${database}.scores WHERE ${not}`),
    one(`SELECT count() FROM ${database}.scores FINAL WHERE ${not}`),
    one(`SELECT uniqExact(unit_id, \`check\`) FROM ${database}.scores WHERE ${not}`),
    one(`SELECT count() FROM (SELECT unit_id, uniqExact(\`check\`) AS c FROM ${database}.scores FINAL WHERE ${not} GROUP BY unit_id) WHERE c = ${checks}`),
    one(`SELECT uniqExact(unit_id) FROM ${database}.units WHERE ${not}`),
    one(`SELECT count() FROM ${database}.units FINAL WHERE span_count != ${spansPerUnit} AND ${not}`),
    query(url, `SELECT DISTINCT unit_id FROM ${database}.scores WHERE ${not} FORMAT TabSeparated`),
  ]);
  return { rawRows, finalRows, distinctUnitChecks, completeUnits, unitsStored, unitsWithOtherSpanCount, unitIds: new Set(ids.split('\n').filter(Boolean)) };
}

/** The counts without the id set, for a test's printed record. */
export function printable(counts: ScoreCounts): Omit<ScoreCounts, 'unitIds'> {
  const { unitIds: _ids, ...rest } = counts;
  return rest;
}

export async function dropDatabase(url: string, database: string): Promise<void> {
  await query(url, `DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
}

/** Records ever written to a topic (sum of its partitions' high watermarks): with replays, more than the distinct units. */
export async function topicRecords(brokers: string[], topic: string): Promise<number> {
  const admin = new Kafka({ clientId: 'fault-test-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** A fault test's counts on stdout, one line, so that a CI log shows what each run measured. */
export function report(label: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[fault] ${label}: ${JSON.stringify(figures)}\n`);
}
