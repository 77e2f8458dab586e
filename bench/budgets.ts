// Latency and CPU budgets that tests assert functionally and this bench times:
//   - code_blocks_compile: a 30,000-parameter block is refused by the size budget at once (budget
//     100 ms), and after 2,000 nested parentheses overflowed the parser's stack, the next block is
//     compiled by a fresh parser process (budget 5 s) (test/integration/checks/catalog-definitions.test.ts);
//   - very large traces in the embedded pipeline: the longest the event loop is held, in CPU
//     (budget 150 ms for a 30,000-span chain in 500-span requests, 500 ms for a 130,000-span wide
//     trace in 10,000-span requests) and in wall time (2,000 ms) (test/e2e/large-traces.test.ts).
// `npm run bench:budgets`; appends to bench/results/budgets.md with the machine and its load. On a
// loaded machine the wall figures count waiting for a core: compare runs at like load.
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { catalogEntries, recordToCheckInput } from '../shared/engines/checks/index.ts';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';
import { largeTraceRequests } from '../test/helpers/large-trace-export.ts';
import { describeWatch, sendAndWatch } from '../test/helpers/large-trace-watch.ts';
import { startPipeline } from '../test/helpers/pipeline-harness.ts';

interface Row {
  what: string;
  figure: number;
  budgetMs: number;
  unit: string;
}
const rows: Row[] = [];
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' / ');
const loadAtStart = load();

async function parserBudgets(): Promise<void> {
  const sandbox = createCodeSandbox();
  try {
    const entry = catalogEntries.find((e) => e.definition.name === 'code_blocks_compile')!;
    const check = entry.build(entry.definition);
    const ctx = { judge: null, nowMs: () => 0, codeRunner: sandbox };
    const ts = (code: string) => recordToCheckInput({ id: 'r', messages: [{ role: 'user', content: 'code please' }, { role: 'assistant', content: `\`\`\`ts\n${code}\n\`\`\`` }] });
    const longArrow = `const total = (${Array.from({ length: 200 }, (_, i) => `p${i}: number`).join(', ')}) => ${Array.from({ length: 200 }, (_, i) => `p${i}`).join(' + ')};`;
    await check.run(ts(longArrow), ctx);
    await check.run(ts(`const x = ${'('.repeat(2_000)}1${')'.repeat(2_000)};`), ctx);
    let started = performance.now();
    const fresh = await check.run(ts(longArrow), ctx);
    rows.push({ what: 'code_blocks_compile: the next block after a parser stack overflow (a fresh parser process)', figure: performance.now() - started, budgetMs: 5_000, unit: 'ms wall' });
    if (fresh.status !== 'ok') throw new Error(`the long arrow function did not compile: ${JSON.stringify(fresh)}`);
    const params = `function f(${Array.from({ length: 30_000 }, (_, i) => `a${i}`).join(', ')}) { return 1; }`;
    started = performance.now();
    const refused = await check.run(ts(params), ctx);
    rows.push({ what: 'code_blocks_compile: a 30,000-parameter block refused by the size budget', figure: performance.now() - started, budgetMs: 100, unit: 'ms wall' });
    if (refused.status !== 'error') throw new Error(`the 30,000-parameter block was not refused: ${JSON.stringify(refused)}`);
  } finally {
    await sandbox.close();
  }
}

async function largeTraceBudgets(): Promise<void> {
  const h = await startPipeline({ TRACECHECK_MAX_SPANS_PER_TRACE: '10000', TRACECHECK_CHECKS: 'function_result_present' });
  try {
    for (const [shape, spans, perRequest, cpuBudgetMs] of [['chain', 30_000, 500, 150], ['wide', 130_000, 10_000, 500]] as const) {
      const traceId = randomBytes(16).toString('hex');
      const w = await sendAndWatch(h, traceId, largeTraceRequests(traceId, shape, spans, perRequest));
      console.log(describeWatch(traceId, w));
      const what = `${spans.toLocaleString('en-US')}-span ${shape} trace in ${perRequest.toLocaleString('en-US')}-span requests`;
      rows.push({ what: `${what}: longest event-loop block`, figure: w.delay.longestCpuMs, budgetMs: cpuBudgetMs, unit: 'ms CPU' });
      rows.push({ what: `${what}: event-loop delay max`, figure: w.delay.maxMs, budgetMs: 2_000, unit: 'ms wall' });
    }
  } finally {
    await h.stop();
  }
}

await parserBudgets();
await largeTraceBudgets();

const table = [
  `## ${new Date().toISOString()}, ${hostname()}, ${cpus()[0]?.model ?? 'cpu'} (${cpus().length} cores), Node ${process.version}`,
  '',
  `Load average (1 / 5 / 15 min) at start ${loadAtStart}, at end ${load()}.`,
  '',
  '| what | figure | budget | within |',
  '|---|---:|---:|---|',
  ...rows.map((r) => `| ${r.what} | ${r.figure.toFixed(0)} ${r.unit} | ${r.budgetMs.toLocaleString('en-US')} ${r.unit} | ${r.figure < r.budgetMs ? 'yes' : '**no**'} |`),
  '',
].join('\n');
const out = join(import.meta.dirname, 'results', 'budgets.md');
mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
if (!existsSync(out)) appendFileSync(out, '# Latency and CPU budgets\n\n`npm run bench:budgets` (bench/budgets.ts): the budgets the tests leave to a benchmark, since a wall clock on a shared machine measures the machine as much as the code.\n\n');
appendFileSync(out, `${table}\n`);
console.log(`\n${table}`);
process.exit(rows.every((r) => r.figure < r.budgetMs) ? 0 : 1);
