import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createDuckDbStore } from '../../../shared/adapters/store/index.ts';
import { createSilentLogger } from '../../../shared/runtime/logging/index.ts';
import { makeUnit } from './store-fixtures.ts';

// The DuckDB store looks a unit id up only when its filter of stored ids may hold it
// (stored-unit-ids.ts). The filter is built from the file at start: what a store wrote before a
// restart must still be found, revised and refused exactly as without it.
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

it('finds, revises and refuses the units a file held before a restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tracecheck-stored-ids-'));
  dirs.push(dir);
  const path = join(dir, 'tracecheck.duckdb');
  const units = Array.from({ length: 300 }, (_, i) => makeUnit({ model_output: `answer ${i}` }));
  const session = { ...makeUnit({ conversation_id: 'conv-1' }), kind: 'session' as const, unit_id: 'session:conv-1' };

  const first = createDuckDbStore({ path, log: createSilentLogger() });
  await first.start();
  await first.writeUnits([...units, session]);
  await first.shutdown();

  const second = createDuckDbStore({ path, log: createSilentLogger() });
  await second.start();
  const found = await second.getUnits([session.unit_id, 'session:conv-2', ...units.slice(0, 100).map((u) => u.unit_id)], 'default');
  expect([...found.keys()].sort()).toEqual([session.unit_id, ...units.slice(0, 100).map((u) => u.unit_id)].sort());
  expect(await second.getUnit(units[299].unit_id)).toEqual(units[299]);
  expect(await second.getUnit('u-never-stored')).toBeNull();

  const fresh = makeUnit({ unit_id: 'u-new' });
  const results = await second.writeScoredUnits([
    { unit: units[0], scores: [] },
    { unit: { ...units[1], model_output: 'changed' }, scores: [] },
    { unit: { ...units[2], project: 'other' }, scores: [] },
    { unit: fresh, scores: [] },
  ]);
  expect(results).toEqual([
    { unit_id: units[0].unit_id, revision: 1, fresh: false, latest: true },
    { unit_id: units[1].unit_id, revision: 2, fresh: true, latest: true },
    { unit_id: units[2].unit_id, refused: expect.stringContaining('project') as string },
    { unit_id: 'u-new', revision: 1, fresh: true, latest: true },
  ]);
  expect((await second.listUnitRevisions(units[1].unit_id)).map((r) => r.revision)).toEqual([1, 2]);
  expect(await second.getUnit('u-new')).toEqual(fresh);
  await second.shutdown();
});
