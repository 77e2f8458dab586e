import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createCommandLogger } from '../command-logger.ts';
import { compareMetricsCommand, METRICS_USAGE } from './compare-metrics.ts';
import type { CliCommand, CliIo } from '../command.ts';
import { ConfigError, loadConfig } from '../../shared/runtime/config/index.ts';
import { createJudge } from '../check-runtime.ts';
import type { AlignedPair, ComparisonResult } from '../../tools/eval/src/index.ts';
import {
  alignOutputs,
  createEvalGenerator,
  createProgress,
  createUserPython,
  EvalConfigError,
  generatePairs,
  readOutputsFile,
  readPreferencesFile,
  renderComparisonMarkdown,
  renderComparisonText,
  runPairwise,
  summarizeComparison,
} from '../../tools/eval/src/index.ts';

const USAGE = `usage: tracecheck compare A.jsonl B.jsonl [options]
       tracecheck compare --prompts A.yaml B.yaml [options]
       tracecheck compare --preferences FILE.jsonl [--json FILE] [--markdown FILE]
${METRICS_USAGE}
Pairwise preference between two variants. For every input a judge sees both outputs, in positions
drawn from a seeded generator (the seed is printed and saved), and answers [[A]], [[B]] or [[tie]];
anything else counts as an unusable answer, never a guess. Reports the preference shares, a 95%
Wilson interval for each side with ties excluded, the exact two-sided binomial p-value, and how often
the first position won.

  A.jsonl B.jsonl       outputs, one JSON object per line: {"id"?, "input"?, "output", "expected"?};
                        aligned by id when every line has one, else by line
  --prompts A.yaml B.yaml
                        run two prompt files over the first one's references, then compare
                        (llmeval prompt code: runs in LLMEVAL_PYTHON, else python3)
  --preferences FILE    only the statistics, from lines {"preferred": "a" | "b" | null}
  --seed N              replay the positions of an earlier comparison
  --judge-model M       judge model (default TRACECHECK_JUDGE_MODEL)
  --concurrency N       judge calls in flight (default TRACECHECK_JUDGE_CONCURRENCY)
  --json FILE           write the full result (every verdict) as JSON
  --markdown FILE       write the summary as Markdown

The judge and the prompts' models are reached through OPENAI_BASE_URL / OPENAI_API_KEY.
`;

interface Args {
  files: string[];
  prompts: boolean;
  preferences: string | null;
  seed: number | null;
  judgeModel: string | null;
  concurrency: number | null;
  json: string | null;
  markdown: string | null;
}

function parseArgs(argv: string[]): Args | string {
  const a: Args = { files: [], prompts: false, preferences: null, seed: null, judgeModel: null, concurrency: null, json: null, markdown: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string | undefined => argv[++i];
    if (arg === '--prompts') a.prompts = true;
    else if (arg === '--preferences') a.preferences = value() ?? '';
    else if (arg === '--seed' || arg === '--concurrency') {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || (arg === '--concurrency' && n < 1)) return `${arg} needs a whole number, got ${v ?? 'nothing'}`;
      if (arg === '--seed') a.seed = n;
      else a.concurrency = n;
    } else if (arg === '--judge-model') a.judgeModel = value() ?? '';
    else if (arg === '--json') a.json = value() ?? '';
    else if (arg === '--markdown') a.markdown = value() ?? '';
    else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else a.files.push(arg);
  }
  if (a.preferences !== null) {
    if (!a.preferences || a.files.length > 0 || a.prompts) return '--preferences takes one file and no outputs';
  } else if (a.files.length !== 2) return 'give two files to compare';
  return a;
}

function writeOutputs(result: ComparisonResult, args: Args, io: CliIo): void {
  io.stdout.write(renderComparisonText(result));
  if (args.json) writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
  if (args.markdown) writeFileSync(args.markdown, renderComparisonMarkdown(result));
}

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'pairwise preference between two variants, judged, with Wilson intervals and an exact binomial test; --metrics: stored runs B vs A on latency, cost and tokens',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    if (argv.includes('--metrics')) return compareMetricsCommand(argv, io);
    const args = parseArgs(argv);
    if (typeof args === 'string') {
      io.stderr.write(`tracecheck compare: ${args}\n\n${USAGE}`);
      return 2;
    }
    try {
      if (args.preferences !== null) {
        const records = readPreferencesFile(args.preferences);
        const result = summarizeComparison({
          labelA: 'a',
          labelB: 'b',
          seed: null,
          judgeModel: null,
          items: records.map((r, i) => ({ id: String(i + 1), input: null, first: r.first, preferred: r.preferred })),
        });
        writeOutputs(result, args, io);
        return 0;
      }
      const config = loadConfig(io.env);
      if (!config.judge) {
        io.stderr.write(`tracecheck compare: ${config.judgeUnavailableReason ?? 'no judge configured'}\n`);
        return 2;
      }
      const log = createCommandLogger(config, 'warn', 'tracecheck-compare');
      const [fileA, fileB] = args.files as [string, string];
      let pairs: AlignedPair[];
      if (args.prompts) {
        // llmeval's prompt code: runs in the user's Python, as under `tracecheck eval`.
        const snippets = createUserPython({ python: config.evalPython ?? 'python3', timeoutMs: config.judgeOps.timeoutMs });
        const generator = createEvalGenerator({ baseUrl: config.judge.baseUrl, apiKey: config.judge.apiKey, cacheDir: null, snippets });
        try {
          pairs = await generatePairs(fileA, fileB, generator, config.judgeOps.timeoutMs);
        } finally {
          await generator.close();
        }
      } else {
        pairs = alignOutputs(readOutputsFile(fileA), readOutputsFile(fileB), fileA, fileB);
      }
      const judgeModel = args.judgeModel || config.judge.model;
      const judge = createJudge(config, log.child({ component: 'compare.judge' }), { model: judgeModel })!;
      const progress = createProgress(io.stderr, 'compare');
      progress.start(pairs.length, 0);
      const result = await runPairwise({
        pairs,
        judge,
        judgeModel,
        seed: args.seed ?? randomInt(0, 2 ** 31),
        concurrency: args.concurrency ?? config.judgeOps.concurrency,
        labelA: basename(fileA),
        labelB: basename(fileB),
        log,
        onItem: () => progress.tick(),
      });
      progress.finish();
      writeOutputs(result, args, io);
      return 0;
    } catch (err) {
      if (err instanceof EvalConfigError || err instanceof ConfigError) {
        io.stderr.write(`tracecheck compare: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  },
};
