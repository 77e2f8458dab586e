// The session aggregator's store lookup, one query per record against one per batch: DuckDB (a
// file, as embedded) holding `--units` session units; 256 session ids asked (as many as the kit
// resolves together), half of them stored. `npm run bench:session-lookup [-- --units 20000 --rounds 5]`.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createDuckDbStore } from '../shared/adapters/store/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import { createTestUnit } from '../test/helpers/unit-factory.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const units = arg('units', 20_000);
const rounds = arg('rounds', 5);
const dir = join(import.meta.dirname, '..', '.cache', `session-lookup-${process.pid}`);
mkdirSync(dir, { recursive: true });
const store = createDuckDbStore({ path: join(dir, 'store.duckdb'), log: createSilentLogger() });
await store.start();
const sessionOf = (i: number) => ({ ...createTestUnit(i, { conversation_id: `conv-${i}` }), kind: 'session' as const, unit_id: `session:conv-${i}` });
for (let i = 0; i < units; i += 500) await store.writeUnits(Array.from({ length: Math.min(500, units - i) }, (_, j) => sessionOf(i + j)));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const one: number[] = [];
const batched: number[] = [];
for (let r = 0; r < rounds; r++) {
  // Half stored, half new conversations, different ones every round.
  const ids = Array.from({ length: 256 }, (_, i) => (i % 2 === 0 ? `session:conv-${(r * 997 + i * 31) % units}` : `session:new-${r}-${i}`));
  let t = performance.now();
  let found = 0;
  for (const id of ids) if (await store.getUnit(id, 'default')) found++;
  one.push(performance.now() - t);
  t = performance.now();
  const map = await store.getUnits(ids, 'default');
  batched.push(performance.now() - t);
  if (map.size !== found) throw new Error(`getUnits found ${map.size}, getUnit ${found}`);
}
await store.shutdown();
rmSync(dir, { recursive: true, force: true });
console.log(
  `DuckDB, ${units} session units stored, 256 ids (128 stored), median of ${rounds}: one getUnit per id ${median(one).toFixed(1)} ms (${(median(one) / 256).toFixed(2)} ms an id), one getUnits ${median(batched).toFixed(1)} ms; load ${loadavg()[0].toFixed(1)}`,
);
