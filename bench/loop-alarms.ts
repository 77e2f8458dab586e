// Loop checks' alarms on labelled real agent runs: every conversation that loop_guard or
// response_loop fails, with the explanation, to be read by hand. The eval data lives outside the
// repository; `node bin/run-ts.mjs bench/loop-alarms.ts [DIR]` (default ../shared/eval-data
// beside the clone, else the shipped subset bench/data/eval-subset).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createCheckRegistry, parseEvalRecord, recordToCheckInput, runCheck } from '../shared/engines/checks/index.ts';

const root = join(import.meta.dirname, '..');
const fullSet = join(root, '..', 'shared', 'eval-data');
const dir = resolve(process.argv[2] ?? (existsSync(fullSet) ? fullSet : join(import.meta.dirname, 'data', 'eval-subset')));
const registry = createCheckRegistry();
const checks = registry.list().filter((c) => c.name === 'loop_guard' || c.name === 'response_loop');
const ctx = { judge: null, judgeUnavailableReason: 'bench: deterministic only', nowMs: () => Date.now(), batch: [] };
let total = 0;
const alarms = new Map<string, string[]>(checks.map((c) => [c.name, []]));
for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl')).sort()) {
  for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const parsed = parseEvalRecord(JSON.parse(line));
    if (!parsed.ok) throw new Error(`${f}: ${parsed.error}`);
    total++;
    const input = recordToCheckInput(parsed.record);
    for (const check of checks) {
      const o = await runCheck(check, input, ctx);
      if (o.status === 'ok' && !o.passed) alarms.get(check.name)!.push(`${input.id}: ${o.explanation}`);
    }
  }
}
process.stdout.write(`${total} conversations from ${dir}\n`);
for (const [name, list] of alarms) {
  process.stdout.write(`\n${name}: ${list.length} alarms (${((100 * list.length) / total).toFixed(1)}%)\n`);
  for (const a of list) process.stdout.write(`  ${a}\n`);
}
