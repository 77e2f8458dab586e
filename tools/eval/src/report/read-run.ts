import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EvalConfigError } from '../eval-error.ts';
import type { RunResult } from '../result-types.ts';

/** A run by folder, by its report.json, or by id under `outputDir`. */
export function readRun(ref: string, outputDir: string): RunResult {
  const candidates = [resolve(ref), resolve(outputDir, ref)];
  for (const c of candidates) {
    if (!existsSync(c)) continue;
    const path = statSync(c).isDirectory() ? join(c, 'report.json') : c;
    if (!existsSync(path)) throw new EvalConfigError(`run ${ref} has no report.json (it did not finish; re-run it with run_id=${ref} to resume)`);
    try {
      const run = JSON.parse(readFileSync(path, 'utf8')) as RunResult;
      if (typeof run.runId !== 'string' || !Array.isArray(run.prompts)) throw new Error('not a tracecheck run report');
      return run;
    } catch (err) {
      throw new EvalConfigError(`cannot read ${path}: ${(err as Error).message}`);
    }
  }
  throw new EvalConfigError(`no run "${ref}" (looked in ${candidates.join(' and ')})`);
}
