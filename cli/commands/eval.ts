import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createCommandLogger } from '../command-logger.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { ConfigError, loadConfig } from '../../shared/runtime/config/index.ts';
import {
  buildTables,
  createProgress,
  crossRunRollup,
  EvalConfigError,
  parseOverrides,
  readRun,
  renderHtml,
  renderMarkdown,
  renderSummary,
  renderTextTables,
  rollupTable,
  runEval,
  runToScores,
} from '../../tools/eval/src/index.ts';
import { createStore } from '../compose.ts';
import { createJudge } from '../check-runtime.ts';
import { datasetReferences } from './eval-dataset.ts';

const USAGE = `usage: tracecheck eval [CONFIG] [key=value …] [--quiet] [--store] [--python PATH] [--dataset NAME[@VERSION]|FILE [--project P]]
       tracecheck eval report RUN… [--format text|markdown|html] [--output FILE] [--runs DIR]

Runs the suite in CONFIG (default tracecheck.yaml, else llmeval.yaml): every prompt file × sweep variant × reference,
n_tries each, scored by the test files' metrics. Prints the table, writes report.{yaml,json,md,html}
under <output>/<run id>/, and exits 1 when a reference fails, 2 on a configuration error.

Overrides (key=value, values read as YAML):
  prompts=NAME[,NAME]   run only these prompts (or prompts=path/glob.yaml)
  n_tries=N             tries per reference
  model=M temperature=T any prompt parameter; a list (temperature=[0,1]) sweeps over it
  run_id=ID             name the run; re-running the same id resumes it (finished tries are kept)
  concurrency=N cache=false output=DIR

--python PATH runs the suite's Python (prompt, metric and roll-up code:) in that interpreter, with its
packages (default: LLMEVAL_PYTHON, else python3 on PATH).

--dataset runs every selected prompt over a dataset's units instead of its own references: a stored
dataset of the project (--project, default "default"; read from the configured store, or through
the API of a running "tracecheck up" with TRACECHECK_API_KEY once the project has keys) or a tests
file \`tracecheck datasets export --format llmeval\` wrote. The references are the same as the
exported file's, so a prompt's template uses {question}, {messages}, {output} and its metrics
read \`expected\`.

--store writes every try's metric results as scores (unit_kind "eval", the run id in environment
"eval:<run id>") to the configured store: ClickHouse with TRACECHECK_CLICKHOUSE_URL, else the DuckDB
file under TRACECHECK_DATA_DIR, where live scores go too.

eval report reads finished runs (folders, report.json files or run ids under --runs, default
.tracecheck/runs), prints their tables and the roll-up across them (per prompt × reference: runs,
tries, passes, fails, pass rate, rows passed/failed/skipped), and writes that roll-up to --output
(.json: JSON; .md: Markdown; .html: HTML; otherwise text). Exits 1 when any run failed.
`;

function fail(io: CliIo, err: unknown): number {
  if (err instanceof EvalConfigError || err instanceof ConfigError) {
    io.stderr.write(`tracecheck eval: ${err.message}\n`);
    return 2;
  }
  throw err;
}

function report(argv: string[], io: CliIo): number {
  let format = 'text';
  let runsDir = '.tracecheck/runs';
  let output: string | null = null;
  const refs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--format') format = argv[++i] ?? '';
    else if (a === '--runs') runsDir = argv[++i] ?? runsDir;
    else if (a === '--output') output = argv[++i] ?? '';
    else refs.push(a);
  }
  if (refs.length === 0 || !['text', 'markdown', 'html'].includes(format)) {
    io.stderr.write(USAGE);
    return 2;
  }
  try {
    const runs = refs.map((r) => readRun(r, resolve(runsDir)));
    const rollup = rollupTable(crossRunRollup(runs));
    const tables = [...buildTables(runs), rollup];
    if (format === 'markdown') io.stdout.write(renderMarkdown(runs, tables));
    else if (format === 'html') io.stdout.write(renderHtml(runs, tables));
    else io.stdout.write(renderTextTables(tables) + '\n' + renderSummary(runs));
    if (output) {
      const rows = crossRunRollup(runs);
      const text = /\.json$/i.test(output)
        ? `${JSON.stringify({ runs: runs.map((r) => ({ runId: r.runId, passed: r.passed })), rollup: rows }, null, 2)}\n`
        : /\.md$/i.test(output) ? renderMarkdown(runs, [rollup]) : /\.html?$/i.test(output) ? renderHtml(runs, [rollup]) : renderTextTables([rollup]) + '\n' + renderSummary(runs);
      writeFileSync(output, text);
      io.stderr.write(`roll-up written to ${output}\n`);
    }
    return runs.every((r) => r.passed) ? 0 : 1;
  } catch (err) {
    return fail(io, err);
  }
}

export const evalCommand: CliCommand = {
  name: 'eval',
  summary: 'run an offline suite (YAML prompts × references × metrics); exit 1 when it fails',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    if (argv[0] === 'report') return Promise.resolve(report(argv.slice(1), io));
    let configPath = 'tracecheck.yaml';
    let quiet = false;
    let store = false;
    let python: string | null = null;
    let dataset: string | null = null;
    let project: string | undefined;
    const pairs: string[] = [];
    let sawConfig = false;
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i];
      if (a === '--quiet' || a === '-q') quiet = true;
      else if (a === '--store') store = true;
      else if (a === '--python' || a.startsWith('--python=')) {
        python = a === '--python' ? (argv[++i] ?? '') : a.slice('--python='.length);
        if (python === '') {
          io.stderr.write(`tracecheck eval: --python needs a path\n\n${USAGE}`);
          return 2;
        }
      }
      else if (a === '--dataset' || a === '--project') {
        const v = argv[++i] ?? '';
        if (v === '') {
          io.stderr.write(`tracecheck eval: ${a} needs a value\n\n${USAGE}`);
          return 2;
        }
        if (a === '--dataset') dataset = v;
        else project = v;
      } else if (a.startsWith('-')) {
        io.stderr.write(`tracecheck eval: unknown option ${a}\n\n${USAGE}`);
        return 2;
      } else if (a.includes('=')) pairs.push(a);
      else if (!sawConfig) {
        configPath = a;
        sawConfig = true;
      } else {
        io.stderr.write(`tracecheck eval: unexpected argument ${a}\n\n${USAGE}`);
        return 2;
      }
    }
    // With no file named, llmeval's own `llmeval.yaml` runs when there is no tracecheck.yaml.
    if (!sawConfig && !existsSync(configPath) && existsSync('llmeval.yaml')) configPath = 'llmeval.yaml';
    try {
      const config = loadConfig(io.env);
      const overrides = parseOverrides(pairs);
      const log = createCommandLogger(config, 'warn', 'tracecheck-eval');
      if (dataset !== null) overrides.references = await datasetReferences(dataset, project, config, log, io.env.TRACECHECK_API_KEY);
      const run = await runEval({ configPath, overrides, python: python ?? config.evalPython ?? 'python3', sandbox: config.sandbox, endpoint: config.judge, judgeUnavailableReason: config.judgeUnavailableReason, log, judge: createJudge(config, log.child({ component: 'eval.judge' })), progress: createProgress(io.stderr) });
      for (const note of run.notes) io.stderr.write(`note: ${note}\n`);
      if (!quiet) io.stdout.write(renderTextTables(buildTables([run.result])) + '\n');
      io.stdout.write(renderSummary([run.result]));
      io.stderr.write(`reports: ${run.reports.yaml}, ${run.reports.json}, ${run.reports.markdown}, ${run.reports.html}; llmeval's: ${run.reports.llmeval}/\n`);
      if (store) {
        const target = createStore(config, log);
        await target.start();
        try {
          const scores = runToScores(run.result, Date.now());
          await target.writeScores(scores);
          io.stderr.write(`stored ${scores.length} scores in ${target.kind} (environment eval:${run.result.runId})\n`);
        } finally {
          await target.shutdown();
        }
      }
      return run.result.passed ? 0 : 1;
    } catch (err) {
      return fail(io, err);
    }
  },
};
