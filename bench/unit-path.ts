// What Kafka mode does to one unit after the assembler built it, in CPU µs (issue 26: steps doubled
// a unit's JSON): the assembler's JSON.stringify, the session router's and the aggregator's reads,
// the scorer's parseUnit, the store's unitToRow and unitFingerprint, and the ClickHouse client's
// JSONEachRow of the units and unit_revisions rows (JSON.stringify of each). In one process, on the
// e2e bench's unit (test/fixtures/units), so it compares commits far more steadily than the whole
// pipeline does on the shared 2 cores.
// `node bin/run-ts.mjs bench/unit-path.ts [unit.json…]`
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseUnit } from '../shared/contracts/schemas/index.ts';
import { unitFingerprint } from '../shared/adapters/store/revisions.ts';
import { unitToRow } from '../shared/adapters/store/rows.ts';

const files = process.argv.slice(2);
const ROUNDS = 20_000;

function cpuMicros(fn: () => unknown): number {
  for (let i = 0; i < 2_000; i++) fn();
  const t = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) fn();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / ROUNDS;
}

for (const file of files.length > 0 ? files : [join(import.meta.dirname, '..', 'test', 'fixtures', 'units', 'bench-trace-with-steps.json')]) {
  const text = readFileSync(file, 'utf8');
  const unit = parseUnit(text);
  const row = unitToRow(unit);
  const parts: [string, () => unknown][] = [
    ['assembler: JSON.stringify', () => JSON.stringify(unit)],
    ['router: JSON.parse', () => JSON.parse(text) as unknown],
    ['aggregator, scorer: parseUnit (×2)', () => (parseUnit(text), parseUnit(text))],
    ['store: unitToRow', () => unitToRow(unit)],
    ['store: unitFingerprint', () => unitFingerprint(unit)],
    ['client: both rows as JSONEachRow', () => JSON.stringify(row).length + JSON.stringify({ unit_json: row.unit_json }).length],
  ];
  let total = 0;
  const rows = parts.map(([name, fn]) => {
    const us = cpuMicros(fn);
    total += us;
    return `| ${name} | ${us.toFixed(1)} |`;
  });
  console.log(`\n${file.split('/').pop()} (${text.length} bytes)\n\n| step | CPU µs |\n|---|---:|\n${rows.join('\n')}\n| total | ${total.toFixed(1)} |`);
}
