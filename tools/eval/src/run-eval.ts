import type { CheckContext, CodeRunner, JudgeClient } from '../../../shared/engines/checks/index.ts';
import { createCheckRegistry } from '../../../shared/engines/checks/index.ts';
import type { Config } from '../../../shared/runtime/config/index.ts';
import { createCodeSandbox } from '../../../shared/engines/code-sandbox/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { createEvalGenerator } from './create-generator.ts';
import { loadSuite } from './load-suite.ts';
import type { Progress } from './progress.ts';
import type { ReportPaths } from './report/write-reports.ts';
import { writeReports } from './report/write-reports.ts';
import type { RunResult } from './result-types.ts';
import type { SnippetRunner } from './run-metrics.ts';
import { runSuite } from './run-suite.ts';
import { createUserPython } from './user-python/create-user-python.ts';

export interface RunEvalOptions {
  configPath: string;
  /** `key=value` overrides, already parsed (parseOverrides). */
  overrides: Record<string, unknown>;
  /** The sandbox processes' slice of the configuration. */
  sandbox: Config['sandbox'];
  /** The model endpoint the suite's generations use (the judge's, from the configuration), unless a prompt file names its own. */
  endpoint: { baseUrl: string | undefined; apiKey: string } | null;
  /** Why model checks will not run, when `judge` is null. */
  judgeUnavailableReason: string | null;
  log: Logger;
  progress: Progress;
  /** The judge (the cli builds it from the configuration); null disables model checks. */
  judge: JudgeClient | null;
  /** Runs code-check metrics in isolation; default: a shared/engines/code-sandbox process for the run. */
  codeRunner?: CodeRunner;
  /** Runs llmeval's Python (prompt, metric and roll-up code); default: the user's interpreter, `python`. */
  snippets?: SnippetRunner;
  /** The user's Python for suite code (`--python`, LLMEVAL_PYTHON); default `python3` on PATH. */
  python?: string;
}

export interface EvalRun {
  result: RunResult;
  /** Settings of the suite accepted but not applied (llmeval's `hydra:`), one line each. */
  notes: string[];
  runDir: string;
  reports: ReportPaths;
}

/**
 * Loads the suite (every configuration error surfaces here, before any model call), runs it and
 * writes the reports. Throws EvalConfigError on configuration errors; then no report is written.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalRun> {
  const suite = loadSuite(options.configPath, options.overrides);
  const judge = options.judge;
  const checkContext: CheckContext = {
    judge,
    ...(judge ? {} : { judgeUnavailableReason: options.judgeUnavailableReason ?? 'no judge configured' }),
    nowMs: () => Date.now(),
  };
  // The sandbox process starts on first use, so suites without code checks never pay for it.
  const sandbox = options.codeRunner ? null : createCodeSandbox({ ...options.sandbox, log: options.log.child({ component: 'eval.code-sandbox' }) });
  checkContext.codeRunner = options.codeRunner ?? sandbox!;
  // llmeval's suite code is the user's own, run as in their CI: in their Python with their packages.
  // Code checks (and those uploaded to the server) stay in the sandbox.
  const snippets: SnippetRunner = options.snippets ?? createUserPython({ python: options.python ?? 'python3', timeoutMs: suite.config.timeoutMs });
  const generator = createEvalGenerator({
    baseUrl: options.endpoint?.baseUrl,
    apiKey: options.endpoint?.apiKey,
    cacheDir: suite.config.cacheDir,
    snippets,
  });
  try {
    const { result, runDir } = await runSuite(suite, {
      log: options.log,
      generator,
      registry: createCheckRegistry(),
      checkContext,
      snippets,
      progress: options.progress,
    });
    const reports = await writeReports(result, runDir, suite.config.dir);
    return { result, runDir, reports, notes: suite.config.notes };
  } finally {
    await generator.close();
    await sandbox?.close();
  }
}
