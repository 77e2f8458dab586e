import { EvalConfigError } from '../eval-error.ts';
import { displayPath } from '../yaml-file.ts';
import { readJsonLines } from './jsonl.ts';

export interface PreferenceRecord {
  preferred: 'a' | 'b' | null;
  /** Which variant was shown first, when the file records it (for position bias). */
  first: 'a' | 'b' | null;
}

/** `{"preferred": "a" | "b" | null}` per line (`"tie"` also reads as a tie); `first` optional. */
export function readPreferencesFile(path: string): PreferenceRecord[] {
  return readJsonLines(path).map(({ line, value }) => {
    const v = value as Record<string, unknown> | null;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !('preferred' in v)) {
      throw new EvalConfigError('each line must be an object with "preferred": "a", "b" or null', displayPath(path), line);
    }
    const p = typeof v.preferred === 'string' ? v.preferred.toLowerCase() : v.preferred;
    if (p !== 'a' && p !== 'b' && p !== null && p !== 'tie') {
      throw new EvalConfigError(`"preferred" must be "a", "b" or null (a tie), got ${JSON.stringify(v.preferred)}`, displayPath(path), line);
    }
    const f = typeof v.first === 'string' ? v.first.toLowerCase() : null;
    return { preferred: p === 'tie' ? null : p, first: f === 'a' || f === 'b' ? f : null };
  });
}
