import { readFileSync } from 'node:fs';
import { displayPath } from '../yaml-file.ts';
import { EvalConfigError } from '../eval-error.ts';

/** Non-empty lines of a JSON Lines file, parsed, each with its 1-based line number. */
export function readJsonLines(path: string): Array<{ line: number; value: unknown }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EvalConfigError(`cannot read file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, displayPath(path));
  }
  const out: Array<{ line: number; value: unknown }> = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) as unknown });
    } catch (err) {
      throw new EvalConfigError(`invalid JSON: ${(err as Error).message}`, displayPath(path), i + 1);
    }
  });
  return out;
}
