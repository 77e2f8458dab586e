// Scores labelled agent conversations with the deterministic catalog: errors, agreement with the
// trace-derived labels, and units per second on one core. `npm run bench:checks [-- DIR]`; by
// default the 24 conversations shipped in bench/data/eval-subset (see its README), or every
// *.jsonl of DIR in the same format (the full 428 when ../shared/eval-data is beside the clone).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CheckInput } from '../shared/engines/checks/index.ts';
import { createCheckRegistry, parseEvalRecord, recordToCheckInput, runCheck } from '../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';

const root = join(import.meta.dirname, '..');
const dir = resolve(process.argv[2] ?? join(import.meta.dirname, 'data', 'eval-subset'));
const fullSet = join(root, '..', 'shared', 'eval-data');
console.log(`data: ${relative(root, dir) || '.'}`);
if (!existsSync(dir)) {
  console.error(`bench:checks: no directory ${dir} (give a directory of *.jsonl eval records, or none for the shipped subset)`);
  process.exit(2);
}
if (!process.argv[2] && existsSync(fullSet)) console.log(`  (the full set is beside this clone: npm run bench:checks -- ${relative(root, fullSet)})`);
const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
const records: { input: CheckInput; labels: Record<string, unknown>; file: string }[] = [];
for (const f of files) {
  for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const raw = JSON.parse(line) as { labels?: Record<string, unknown> };
    const parsed = parseEvalRecord(raw);
    if (!parsed.ok) throw new Error(`${f}: ${parsed.error}`);
    records.push({ input: recordToCheckInput(parsed.record), labels: raw.labels ?? {}, file: f });
  }
}
const registry = createCheckRegistry();
const checks = registry.list().filter((c) => c.kind === 'builtin');
const batch = records.map((r) => r.input);
// does_code_compile runs Python's compile() in the Python sandbox.
const sandbox = createCodeSandbox();
const ctx = { judge: null, judgeUnavailableReason: 'bench: deterministic only', nowMs: () => Date.now(), batch, codeRunner: sandbox };

const counts = new Map<string, { ok: number; notRun: number; error: number }>();
const agreement = new Map<string, { agree: number; total: number; disagree: string[] }>();
const errors: string[] = [];
for (const r of records) {
  for (const check of checks) {
    const o = await runCheck(check, r.input, ctx);
    const c = counts.get(check.name) ?? { ok: 0, notRun: 0, error: 0 };
    if (o.status === 'ok') c.ok++;
    else if (o.status === 'not_run') c.notRun++;
    else {
      c.error++;
      errors.push(`${r.input.id} ${check.name}: ${o.error}`);
    }
    counts.set(check.name, c);
    const label = r.labels[check.name];
    if (typeof label === 'boolean' && o.status === 'ok') {
      const a = agreement.get(check.name) ?? { agree: 0, total: 0, disagree: [] };
      a.total++;
      if (o.passed === label) a.agree++;
      else a.disagree.push(`${r.input.id} (label ${label}, ours ${String(o.passed)}: ${o.explanation})`);
      agreement.set(check.name, a);
    }
  }
}

// Throughput: the deterministic catalog over every record, repeated, on this one thread.
// Enough rounds for about 1,300 units, so that the small shipped subset runs past JIT warm-up too.
const rounds = Number(process.env.BENCH_ROUNDS ?? Math.max(3, Math.ceil(1300 / records.length)));
const perCheckMs = new Map<string, number>();
const started = performance.now();
for (let k = 0; k < rounds; k++) {
  for (const r of records) {
    for (const check of checks) {
      const t = performance.now();
      await runCheck(check, r.input, ctx);
      perCheckMs.set(check.name, (perCheckMs.get(check.name) ?? 0) + performance.now() - t);
    }
  }
}
const seconds = (performance.now() - started) / 1000;
const unitsPerSecond = (records.length * rounds) / seconds;

console.log(`records: ${records.length} (${files.join(', ')})`);
console.log(`deterministic checks: ${checks.length} (${checks.map((c) => c.name).join(', ')})`);
console.log(`errors: ${errors.length}`);
for (const e of errors.slice(0, 20)) console.log(`  ${e}`);
console.log('check | ok | not_run | error');
for (const [name, c] of counts) console.log(`${name} | ${c.ok} | ${c.notRun} | ${c.error}`);
for (const [name, a] of agreement) {
  console.log(`agreement ${name}: ${a.agree}/${a.total} = ${((100 * a.agree) / a.total).toFixed(1)}%`);
  for (const d of a.disagree) console.log(`  disagree: ${d}`);
}
console.log('time per unit by check (ms):');
for (const [name, ms] of perCheckMs) console.log(`  ${name}: ${(ms / (records.length * Math.max(rounds, 1))).toFixed(3)}`);
console.log(`throughput: ${unitsPerSecond.toFixed(0)} units/s on one core (${checks.length} checks per unit, ${rounds} rounds, ${seconds.toFixed(2)} s)`);
await sandbox.close();
