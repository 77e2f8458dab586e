import { existsSync } from 'node:fs';
import { CheckStoreError, openUserChecks } from './check-store/index.ts';
import type { CheckContext, CheckRegistry, RunnableCheck } from '../shared/engines/checks/index.ts';
import type { CodeSandbox } from '../shared/engines/code-sandbox/index.ts';
import { createCodeSandbox } from '../shared/engines/code-sandbox/index.ts';
import type { Config } from '../shared/runtime/config/index.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import { createJudgeClient, type ResilientJudge } from '../shared/engines/judge/index.ts';

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

/**
 * The one place a judge client is built: the configured endpoint (or `endpoint`, e.g. the demo's
 * model server or a `--judge-model`), under the configured operations (pool, rate limit, retries,
 * timeout, deadline, circuit breaker, cache). Null without a judge.
 */
export function createJudge(config: Config, log?: Logger, endpoint?: { baseUrl?: string; model?: string }, hooks: { onRetry?: () => void } = {}): ResilientJudge | null {
  const base = config.judge ?? (endpoint?.baseUrl ? { baseUrl: endpoint.baseUrl, apiKey: 'not-needed', model: 'gpt-4o-mini' } : null);
  if (!base) return null;
  return createJudgeClient(
    { ...config.judgeOps, baseUrl: endpoint?.baseUrl ?? base.baseUrl, apiKey: base.apiKey, model: endpoint?.model ?? base.model },
    log,
    hooks,
  );
}

/**
 * The catalog plus the definitions of a JSON Lines file (cli/check-store). A bad line throws
 * CheckStoreError, naming the file and line.
 */
export function loadRegistry(definitionsFile: string | undefined): CheckRegistry {
  if (definitionsFile && !existsSync(definitionsFile)) throw new CheckStoreError(`${definitionsFile}: no such definitions file`);
  return openUserChecks(definitionsFile ?? null).registry;
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
  const sandbox = needsSandbox ? createCodeSandbox(config.sandbox) : null;
  const ctx: CheckContext = {
    judge: createJudge(config),
    ...(config.judgeUnavailableReason ? { judgeUnavailableReason: config.judgeUnavailableReason } : {}),
    nowMs: () => Date.now(),
    ...(sandbox ? { codeRunner: sandbox } : {}),
  };
  return { ctx, sandbox };
}
