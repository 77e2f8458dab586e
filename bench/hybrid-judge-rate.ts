// How often `hybrid` (the default mode of the seven judge-described checks) asks the judge on
// labelled real agent runs: per check, the share of runs the code settles and the share sent to
// the judge. The judge here counts calls and answers [[True]]; no model is called. The eval data
// lives outside the repository: `node bin/run-ts.mjs bench/hybrid-judge-rate.ts DIR` or
// TRACECHECK_EVAL_DATA=DIR (default ../shared/eval-data beside the clone, else the shipped subset
// bench/data/eval-subset).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createCheckRegistry, parseEvalRecord, recordToCheckInput, runCheck, type CheckContext, type JudgeClient } from '../shared/engines/checks/index.ts';

const SEVEN = ['model_refusal', 'loop_guard', 'automated_resolution', 'response_loop', 'simulation_trace_consistency', 'function_parameter_accuracy', 'function_result_present'];
const root = join(import.meta.dirname, '..');
const fullSet = join(root, '..', 'shared', 'eval-data');
const dir = resolve(process.argv[2] ?? process.env.TRACECHECK_EVAL_DATA ?? (existsSync(fullSet) ? fullSet : join(import.meta.dirname, 'data', 'eval-subset')));
const registry = createCheckRegistry();
const checks = SEVEN.map((name) => registry.get(name)!);
let calls = 0;
const judge: JudgeClient = {
  complete: () => {
    calls++;
    return Promise.resolve({ text: '[[True]] ((bench))', model: 'bench', inputTokens: 0, outputTokens: 0 });
  },
};
const ctx: CheckContext = { judge, nowMs: () => Date.now(), batch: [] };
const tally = new Map(SEVEN.map((n) => [n, { ran: 0, judged: 0, notRun: 0 }]));
const perFile: string[] = [];
let total = 0;
for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl')).sort()) {
  let runs = 0;
  const before = calls;
  for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const parsed = parseEvalRecord(JSON.parse(line));
    if (!parsed.ok) throw new Error(`${f}: ${parsed.error}`);
    total++;
    const input = recordToCheckInput(parsed.record);
    for (const check of checks) {
      const t = tally.get(check.name)!;
      const asked = calls;
      const o = await runCheck(check, input, ctx);
      if (o.status === 'not_run') t.notRun++;
      else {
        t.ran++;
        runs++;
        if (calls > asked) t.judged++;
      }
    }
  }
  perFile.push(`| ${f} | ${runs} | ${calls - before} | ${((100 * (calls - before)) / Math.max(runs, 1)).toFixed(1)}% |`);
}
const pct = (a: number, b: number): string => `${((100 * a) / Math.max(b, 1)).toFixed(1)}%`;
const ran = [...tally.values()].reduce((s, t) => s + t.ran, 0);
process.stdout.write(`${total} conversations from ${dir}\n\n| check | runs | to the judge | judge-call rate | not_run |\n|---|---|---|---|---|\n`);
for (const [name, t] of tally) process.stdout.write(`| ${name} | ${t.ran} | ${t.judged} | ${pct(t.judged, t.ran)} | ${t.notRun} |\n`);
process.stdout.write(`| all seven | ${ran} | ${calls} | ${pct(calls, ran)} | |\n\n| file | runs | to the judge | rate |\n|---|---|---|---|\n${perFile.join('\n')}\n`);
