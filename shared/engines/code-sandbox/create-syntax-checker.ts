import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { SyntaxCheckRequest, SyntaxCheckResult } from '../checks/index.ts';
import { createProcessPool } from './sandbox-pool/index.ts';
import { PARSER_SOURCE } from './parser-source.ts';

/** Longer texts are not parsed at all: a fenced block of this size is no snippet. */

/** Parser processes run no user code (they parse text and exit when the parser threw), so every project shares them. */
const PARSER_OWNER = 'parsers';
const MAX_SYNTAX_CHECK_CHARS = 100_000;
/** Per text; an ordinary block parses in milliseconds (30,000 parameters took 70 s in the scorer's thread). */
const SYNTAX_CHECK_TIMEOUT_MS = 2_000;

/** A check module's transpile: generous, as a check's source is validated before it is saved. */
const TRANSPILE_TIMEOUT_MS = 10_000;

type TranspileResult = { ok: true; code: string } | { ok: false; error: string };

export interface SyntaxChecker {
  syntaxErrors(request: SyntaxCheckRequest): Promise<SyntaxCheckResult>;
  /** A check's TypeScript/JavaScript module → CommonJS for the sandbox; syntax errors are reported, types are not checked. */
  transpile(source: string, language: 'typescript' | 'javascript'): Promise<TranspileResult>;
  close(): Promise<void>;
}

/**
 * The TypeScript parser for text from traces and for check sources, in a pool of child processes (parser-source.ts)
 * under the sandbox pool's OS limits, network namespace and permission model (a read of the
 * `typescript` package only): a hostile text costs at most its own process and
 * SYNTAX_CHECK_TIMEOUT_MS, never the caller's thread or the next text's result.
 */
export function createSyntaxChecker(options: { processes: number; log?: Logger }): SyntaxChecker {
  const tsMain = createRequire(import.meta.url).resolve('typescript');
  const pool = createProcessPool({
    name: 'TypeScript parser',
    args: ['--experimental-permission', `--allow-fs-read=${dirname(dirname(tsMain))}`, '--disallow-code-generation-from-strings', '--max-old-space-size=256', '--no-warnings', '-e', PARSER_SOURCE, tsMain],
    limits: { memoryMb: 768, cpuSeconds: 300 },
    size: options.processes,
    startTimeoutMs: 30_000,
    ...(options.log ? { log: options.log } : {}),
  });
  // By source: a check is transpiled once, not per evaluation. Answers of the parser are kept; a timeout or a lost process is not.
  const transpiled = new Map<string, TranspileResult>();
  return {
    async transpile(source, language) {
      const key = createHash('sha256').update(language).update('\0').update(source).digest('hex');
      const hit = transpiled.get(key);
      if (hit) return hit;
      const outcome = await pool.run({ owner: PARSER_OWNER, key, request: JSON.stringify({ kind: 'transpile', code: source, language }), timeoutMs: TRANSPILE_TIMEOUT_MS });
      if (outcome.kind !== 'reply') {
        const why = outcome.kind === 'timeout' ? `gave up after ${TRANSPILE_TIMEOUT_MS} ms` : outcome.kind === 'exit' ? `process exited (${outcome.signal ?? `code ${String(outcome.code)}`})` : `was refused: ${outcome.error}`;
        return { ok: false, error: `does not compile: the TypeScript parser ${why}` };
      }
      const m = outcome.message as { ok?: boolean; code?: unknown; error?: unknown };
      const result: TranspileResult =
        m.ok === true && typeof m.code === 'string' ? { ok: true, code: m.code } : { ok: false, error: typeof m.error === 'string' ? (m.error.startsWith('does not compile') || m.error.startsWith('imports ') ? m.error : `does not compile: the TypeScript parser failed: ${m.error}`) : 'does not compile' };
      if (transpiled.size >= 500) transpiled.delete(transpiled.keys().next().value!);
      transpiled.set(key, result);
      return result;
    },
    async syntaxErrors(req) {
      if (req.code.length > MAX_SYNTAX_CHECK_CHARS) return { ok: false, error: `the block has ${req.code.length} characters, more than the ${MAX_SYNTAX_CHECK_CHARS} the parser is given` };
      // Keyed by the text: a hostile block that keeps costing processes is paused, not every block.
      const key = createHash('sha256').update(req.language).update('\0').update(req.code).digest('hex');
      const outcome = await pool.run({ owner: PARSER_OWNER, key, request: JSON.stringify({ kind: 'syntax', code: req.code, language: req.language }), timeoutMs: SYNTAX_CHECK_TIMEOUT_MS });
      switch (outcome.kind) {
        case 'reply': {
          const m = outcome.message as { ok?: boolean; errors?: unknown; error?: unknown };
          if (m.ok === true && Array.isArray(m.errors)) return { ok: true, errors: m.errors.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) };
          return { ok: false, error: `the parser failed: ${typeof m.error === 'string' ? m.error : 'no answer'}` };
        }
        case 'timeout':
          return { ok: false, error: `the parser gave up after ${SYNTAX_CHECK_TIMEOUT_MS} ms` };
        case 'exit':
          return { ok: false, error: `the parser process exited (${outcome.signal ?? `code ${String(outcome.code)}`})` };
        case 'refused':
          return { ok: false, error: outcome.error };
      }
    },
    close: () => pool.close(),
  };
}
