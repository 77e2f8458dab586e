import { describe, expect, it } from 'vitest';
import { candidatesSql, latestRowsSql, likeContaining } from './explore-clickhouse.ts';
import { normalizeExplore } from './explore.ts';
import { sql } from './sql-quote.ts';

const db = sql`db`;

describe('the explorer on ClickHouse', () => {
  it('matches a word as a LIKE pattern whose own wildcards and backslashes match themselves', () => {
    expect(likeContaining('refund')).toBe('%refund%');
    expect(likeContaining(`x-99%_\\ 'q'`)).toBe(`%x-99\\%\\_\\\\ 'q'%`);
  });

  it('reads a time window in PREWHERE when given one, and the whole table when not', () => {
    const nq = normalizeExplore({ project: 'p', text: 'a%', limit: 5 });
    expect(candidatesSql(db, nq, null, 30, 1_000.5).sqlText).toBe(
      "SELECT unit_id, toFloat64(end_time_ms) AS sort_key, assembled_at_ms, write_seq FROM db.units PREWHERE end_time_ms >= 1000 WHERE project = 'p' AND search_text LIKE '%a\\\\%%' ORDER BY sort_key DESC, unit_id LIMIT 30",
    );
    expect(candidatesSql(db, nq, { key: 7, unit_id: 'u' }, 30, null).sqlText).toBe(
      "SELECT unit_id, toFloat64(end_time_ms) AS sort_key, assembled_at_ms, write_seq FROM db.units WHERE project = 'p' AND search_text LIKE '%a\\\\%%' AND (toFloat64(end_time_ms) < 7 OR (toFloat64(end_time_ms) = 7 AND unit_id > 'u')) ORDER BY sort_key DESC, unit_id LIMIT 30",
    );
  });

  it('takes the latest row of each unit as FINAL would: highest assembled_at_ms, then the later write', () => {
    const text = latestRowsSql(db, normalizeExplore({ project: 'p', sort: 'cost' }), ['a', 'b']).sqlText;
    expect(text).toMatch(/ifNull\(cost_usd, -1\) AS sort_key, assembled_at_ms, write_seq FROM db\.units PREWHERE unit_id IN \('a', 'b'\) ORDER BY unit_id, assembled_at_ms DESC, write_seq DESC LIMIT 1 BY unit_id$/);
  });
});
