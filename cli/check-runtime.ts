import { readFileSync } from 'node:fs';
import type { CheckContext, CheckDefinition, CheckRegistry, JudgeClient, RunnableCheck } from '../shared/checks/index.ts';
import { createCheckRegistry } from '../shared/checks/index.ts';
import type { CodeSandbox } from '../shared/code-sandbox/index.ts';
import { createCodeSandbox } from '../shared/code-sandbox/index.ts';
import type { Config } from '../shared/config/index.ts';
import type { Logger } from '../shared/logging/index.ts';
import { createOpenAiJudgeClient } from '../shared/judge/index.ts';

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** `--name value` and `--flag` arguments. */
export function parseFlags(argv: string[]): Map<string, string | true> {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags.set(a.slice(2), argv[++i]);
    else flags.set(a.slice(2), true);
  }
  return flags;
}

export function judgeFromConfig(config: Config, log?: Logger, onRetry?: () => void): JudgeClient | null {
  return config.judge
    ? createOpenAiJudgeClient({ baseUrl: config.judge.baseUrl, apiKey: config.judge.apiKey, model: config.judge.model, timeoutMs: config.judge.timeoutMs, ...(log ? { log } : {}), ...(onRetry ? { onRetry } : {}) })
    : null;
}

/**
 * The catalog plus the definitions of a JSON Lines file (one definition per line, as
 * `tracecheck checks upload --out` writes them). A bad line throws, naming the file and line.
 */
export function loadRegistry(definitionsFile: string | undefined): CheckRegistry {
  const registry = createCheckRegistry();
  if (!definitionsFile) return registry;
  readFileSync(definitionsFile, 'utf8').split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      registry.createOrUpdateCheck(JSON.parse(line) as CheckDefinition);
    } catch (err) {
      throw new Error(`${definitionsFile}:${i + 1}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  });
  return registry;
}


/** `all`, `deterministic` (every check decided in code), or a comma list of names. */
export function selectChecks(registry: CheckRegistry, spec: string): { checks: RunnableCheck[]; unknown: string[] } {
  if (spec === 'all') return { checks: registry.list(), unknown: [] };
  if (spec === 'deterministic') return { checks: registry.list().filter((c) => c.kind === 'builtin'), unknown: [] };
  const names = spec.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !registry.get(n));
  return { checks: names.flatMap((n) => registry.get(n) ?? []), unknown };
}

export function contextFor(config: Config, needsSandbox: boolean): { ctx: CheckContext; sandbox: CodeSandbox | null } {
  const sandbox = needsSandbox ? createCodeSandbox() : null;
  const ctx: CheckContext = {
    judge: judgeFromConfig(config),
    ...(config.judgeUnavailableReason ? { judgeUnavailableReason: config.judgeUnavailableReason } : {}),
    nowMs: () => Date.now(),
    ...(sandbox ? { codeRunner: sandbox } : {}),
  };
  return { ctx, sandbox };
}
