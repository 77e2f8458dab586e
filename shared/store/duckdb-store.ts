import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { PermanentError, RetriableError } from '../errors/index.ts';
import type { Logger } from '../logging/index.ts';
import type { Score, Unit } from '../schemas/index.ts';
import type { ScoreQuery, Store } from './contract.ts';
import {
  SCORE_FIELDS,
  UNIT_COLUMNS,
  jsonToUnit,
  lastPerScoreKey,
  lastPerUnit,
  normalizeScoreQuery,
  rowToScore,
  scoreToRow,
  unitToRow,
} from './rows.ts';

export interface DuckDbStoreOptions {
  /** A file path (its directory is created if missing) or `:memory:`. */
  path: string;
  log: Logger;
}

// Every value is bound ($1, $2, …); the only text spliced into SQL is these constant column names.
const q = (name: string): string => `"${name}"`;

const SCORES_DDL = `CREATE TABLE IF NOT EXISTS scores (
  schema_version INTEGER NOT NULL,
  unit_id VARCHAR NOT NULL,
  unit_kind VARCHAR NOT NULL,
  "check" VARCHAR NOT NULL,
  check_version VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  value DOUBLE,
  passed BOOLEAN,
  explanation VARCHAR NOT NULL,
  method VARCHAR NOT NULL,
  error VARCHAR,
  judge_model VARCHAR,
  latency_ms DOUBLE NOT NULL,
  input_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL,
  cost_usd DOUBLE NOT NULL,
  agent_name VARCHAR,
  agent_version VARCHAR,
  environment VARCHAR,
  service VARCHAR,
  unit_end_time_ms DOUBLE NOT NULL,
  created_at_ms BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (unit_id, "check", check_version)
)`;

const UNITS_DDL = `CREATE TABLE IF NOT EXISTS units (
  unit_id VARCHAR PRIMARY KEY,
  kind VARCHAR NOT NULL,
  agent_name VARCHAR,
  agent_version VARCHAR,
  environment VARCHAR,
  service VARCHAR,
  conversation_id VARCHAR,
  model VARCHAR,
  start_time_ms BIGINT NOT NULL,
  end_time_ms BIGINT NOT NULL,
  span_count BIGINT NOT NULL,
  truncated BOOLEAN NOT NULL,
  assembled_at_ms BIGINT NOT NULL,
  unit_json VARCHAR NOT NULL
)`;

const SCORE_INSERT = (() => {
  const cols = SCORE_FIELDS.map(q).join(', ');
  const params = SCORE_FIELDS.map((_, i) => `$${i + 1}`).join(', ');
  const createdAtMs = `$${SCORE_FIELDS.indexOf('created_at_ms') + 1}`;
  return `INSERT OR REPLACE INTO scores (${cols}, created_at) VALUES (${params}, epoch_ms(CAST(${createdAtMs} AS BIGINT)))`;
})();

// A unit replaces the stored one unless the stored one was assembled later (a tie: later write wins).
const UNIT_INSERT = (() => {
  const cols = UNIT_COLUMNS.map(q).join(', ');
  const params = UNIT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
  const updates = UNIT_COLUMNS.filter((c) => c !== 'unit_id')
    .map((c) => `${q(c)} = excluded.${q(c)}`)
    .join(', ');
  return `INSERT INTO units (${cols}) VALUES (${params}) ON CONFLICT (unit_id) DO UPDATE SET ${updates} WHERE excluded.assembled_at_ms >= units.assembled_at_ms`;
})();

const SCORE_SELECT_COLUMNS = SCORE_FIELDS.map(q).join(', ');

function classify(err: unknown, action: string): Error {
  if (err instanceof PermanentError || err instanceof RetriableError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // DuckDB reports I/O and lock conflicts (another process holds the file) as such; retrying may help.
  if (/\bIO Error\b|Could not set lock|Conflicting lock|Transaction conflict/i.test(message)) {
    return new RetriableError(`duckdb ${action} failed: ${message}`, { cause: err });
  }
  return new PermanentError(`duckdb ${action} failed: ${message}`, { cause: err });
}

/** The embedded store: one DuckDB file (or memory), one connection, one operation at a time. */
export function createDuckDbStore(options: DuckDbStoreOptions): Store {
  const log = options.log;
  let instance: DuckDBInstance | null = null;
  let connection: DuckDBConnection | null = null;
  let opening: Promise<DuckDBConnection> | null = null;
  let migrated = false;
  let closed = false;
  // DuckDB has one writer and a connection runs one statement at a time: every operation queues here.
  let tail: Promise<unknown> = Promise.resolve();

  async function open(): Promise<DuckDBConnection> {
    if (closed) throw new PermanentError('duckdb store is shut down');
    if (connection) return connection;
    opening ??= (async () => {
      if (options.path !== ':memory:') await mkdir(dirname(options.path), { recursive: true });
      instance = await DuckDBInstance.create(options.path);
      connection = await instance.connect();
      return connection;
    })();
    return opening;
  }

  function serialized<T>(action: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const run = tail.then(async () => {
      try {
        return await fn(await open());
      } catch (err) {
        throw classify(err, action);
      }
    });
    tail = run.catch(() => undefined);
    return run;
  }

  async function inTransaction(c: DuckDBConnection, fn: () => Promise<void>): Promise<void> {
    await c.run('BEGIN TRANSACTION');
    try {
      await fn();
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK').catch((rollbackErr: unknown) => log.error({ err: rollbackErr }, 'duckdb rollback failed'));
      throw err;
    }
  }

  async function migrate(): Promise<void> {
    await serialized('migrate', async (c) => {
      await c.run(UNITS_DDL);
      await c.run(SCORES_DDL);
    });
    migrated = true;
  }

  async function ensureMigrated(): Promise<void> {
    if (!migrated) await migrate();
  }

  const store: Store = {
    kind: 'duckdb',
    name: 'store.duckdb',
    async start() {
      await migrate();
      log.info({ path: options.path }, 'duckdb store ready');
    },
    async shutdown() {
      if (closed) return;
      await tail;
      closed = true;
      connection?.closeSync();
      instance?.closeSync();
      connection = null;
      instance = null;
    },
    migrate,

    async writeUnits(units: readonly Unit[]) {
      if (units.length === 0) return;
      const rows = lastPerUnit(units.map(unitToRow));
      await ensureMigrated();
      await serialized('writeUnits', async (c) => {
        const stmt = await c.prepare(UNIT_INSERT);
        try {
          await inTransaction(c, async () => {
            for (const row of rows) {
              stmt.bind(UNIT_COLUMNS.map((col) => row[col] satisfies DuckDBValue));
              await stmt.run();
            }
          });
        } finally {
          stmt.destroySync();
        }
      });
    },

    async writeScores(scores: readonly Score[]) {
      if (scores.length === 0) return;
      const rows = lastPerScoreKey(scores.map(scoreToRow));
      await ensureMigrated();
      await serialized('writeScores', async (c) => {
        const stmt = await c.prepare(SCORE_INSERT);
        try {
          await inTransaction(c, async () => {
            for (const row of rows) {
              stmt.bind(SCORE_FIELDS.map((f) => row[f] satisfies DuckDBValue));
              await stmt.run();
            }
          });
        } finally {
          stmt.destroySync();
        }
      });
    },

    async getUnit(unitId: string) {
      if (typeof unitId !== 'string') throw new PermanentError('unitId must be a string');
      await ensureMigrated();
      const rows = await serialized('getUnit', async (c) => {
        const reader = await c.runAndReadAll('SELECT unit_json FROM units WHERE unit_id = $1', [unitId]);
        return reader.getRowObjectsJS();
      });
      const first = rows[0];
      if (!first) return null;
      return jsonToUnit(first.unit_json, log);
    },

    async queryScores(query: ScoreQuery) {
      const nq = normalizeScoreQuery(query);
      const where: string[] = [];
      const values: DuckDBValue[] = [];
      const bind = (v: DuckDBValue): string => {
        values.push(v);
        return `$${values.length}`;
      };
      if (nq.check !== undefined) where.push(`"check" = ${bind(nq.check)}`);
      if (nq.unitId !== undefined) where.push(`unit_id = ${bind(nq.unitId)}`);
      if (nq.fromMs !== undefined) where.push(`created_at_ms >= ${bind(nq.fromMs)}`);
      if (nq.toMs !== undefined) where.push(`created_at_ms < ${bind(nq.toMs)}`);
      const sqlText =
        `SELECT ${SCORE_SELECT_COLUMNS} FROM scores` +
        (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
        ` ORDER BY created_at_ms DESC, unit_id, "check", check_version LIMIT ${bind(nq.limit)}`;
      await ensureMigrated();
      const rows = await serialized('queryScores', async (c) => (await c.runAndReadAll(sqlText, values)).getRowObjectsJS());
      const scores: Score[] = [];
      for (const row of rows) {
        const s = rowToScore(row, log);
        if (s) scores.push(s);
      }
      return scores;
    },
  };
  return store;
}

