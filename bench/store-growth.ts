// The embedded store's cost per unit as it fills: DuckDB (a file, as `tracecheck up` runs it) takes
// what the soak's pipeline gives it, batch after batch: `writeScoredUnits` of new trace units (random
// 32-hex ids, as OTel trace ids are) with two scores each, and the session aggregator's
// `getUnits` of as many new conversations. CPU time of this process (all threads, DuckDB's
// included) per unit, for each step of `--step` units, until `--units` are stored: a cost that
// grows with what is stored shows as a rising column. `npm run bench:store-growth [-- --units 200000 --step 20000 --batch 60]`.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { createDuckDbStore } from '../shared/adapters/store/index.ts';
import type { Score } from '../shared/contracts/schemas/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createTestUnit } from '../test/helpers/unit-factory.ts';
import { loadAverages } from './soak-load.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const total = arg('units', 200_000);
const step = arg('step', 20_000);
const batch = arg('batch', 60);
const dir = join(import.meta.dirname, '..', '.cache', `store-growth-${process.pid}`);
mkdirSync(dir, { recursive: true });
// The embedded default (cli config: TRACECHECK_DUCKDB_MEMORY_LIMIT).
const store = createDuckDbStore({ path: join(dir, 'store.duckdb'), log: createSilentLogger(), memoryLimit: '256MB' });
await store.start();

const scoreOf = (unitId: string, check: string, endMs: number): Score => ({
  schema_version: 1, unit_id: unitId, unit_kind: 'trace', check, check_version: '1', status: 'ok', value: null, passed: true, explanation: '', method: 'code', error: null, judge_model: null,
  latency_ms: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, agent_name: 'agent', agent_version: 'v1', environment: 'prod', service: 'svc', unit_end_time_ms: endMs, created_at_ms: Date.now(),
});

console.log(`DuckDB file, 256 MB limit; batches of ${batch} new trace units (2 scores each) and a getUnits of ${batch} new session ids; ${hostname()}, ${cpus().length} cores; load ${loadAverages()}`);
console.log('| units stored | CPU per unit (all threads) | writeScoredUnits per batch | getUnits per batch |');
console.log('|---:|---:|---:|---:|');
for (let stored = 0; stored < total; ) {
  const cpu0 = process.cpuUsage();
  let writeMs = 0;
  let lookupMs = 0;
  let batches = 0;
  for (let n = 0; n < step; n += batch, batches++) {
    const units = Array.from({ length: batch }, (_, i) => createTestUnit(stored + n + i, { unit_id: randomBytes(16).toString('hex') }));
    let t = performance.now();
    await store.getUnits(units.map((u) => `session:${u.unit_id}`), 'default');
    lookupMs += performance.now() - t;
    t = performance.now();
    await store.writeScoredUnits(units.map((unit) => ({ unit, scores: [scoreOf(unit.unit_id, 'loop_guard', unit.end_time_ms), scoreOf(unit.unit_id, 'function_result_present', unit.end_time_ms)] })));
    writeMs += performance.now() - t;
  }
  const cpu = process.cpuUsage(cpu0);
  stored += step;
  console.log(`| ${stored.toLocaleString('en-US')} | ${((cpu.user + cpu.system) / 1000 / step).toFixed(3)} ms | ${(writeMs / batches).toFixed(1)} ms | ${(lookupMs / batches).toFixed(1)} ms |`);
}
await store.shutdown();
rmSync(dir, { recursive: true, force: true });
console.log(`load at end ${loadAverages()}`);
