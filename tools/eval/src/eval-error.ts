import { PermanentError } from '../../../shared/runtime/errors/index.ts';

/**
 * A problem with the suite itself (YAML, templates, expressions, paths): the run cannot mean
 * anything, so it stops before (or instead of) a report. `file:line: message` when a place is known.
 */
export class EvalConfigError extends PermanentError {
  constructor(
    readonly detail: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file ? `${file}${line ? `:${line}` : ''}: ${detail}` : detail);
    this.name = 'EvalConfigError';
  }
}
