// Writes `<scenario>[.logs].expected.json` beside every golden OTLP export under test/fixtures/otlp/.
// Review the diff by hand before committing: the expectations are the spec for the replay test.
// `node bin/run-ts.mjs test/integration/collector/update-fixture-expectations.ts`
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { listFixtures, normalizeFixture } from './fixture-expectations.ts';

for (const f of listFixtures()) {
  const records = normalizeFixture(f);
  writeFileSync(f.expectedPath, `${JSON.stringify({ source: relative(f.expectedPath, f.jsonPath).replace(/^\.\.\//, ''), records }, null, 2)}\n`);
  process.stdout.write(`${relative(process.cwd(), f.expectedPath)}: ${records.length} records\n`);
}
