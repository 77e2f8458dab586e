import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TryResult } from './result-types.ts';

/** Finished (row, try) pairs of a run, one JSON line each, so an interrupted run can resume. */
export interface ResumeLog {
  get(rowKey: string, tryIndex: number): TryResult | undefined;
  record(rowKey: string, result: TryResult): void;
  size(): number;
}

export function openResumeLog(path: string): ResumeLog {
  const done = new Map<string, TryResult>();
  if (existsSync(path)) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const rec = JSON.parse(line) as { key: string; result: TryResult };
        done.set(`${rec.key}#${rec.result.try}`, rec.result);
      } catch {
        // The last line may be torn by the interruption; that try simply runs again.
      }
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  return {
    get: (key, t) => done.get(`${key}#${t}`),
    record(key, result) {
      done.set(`${key}#${result.try}`, result);
      appendFileSync(path, `${JSON.stringify({ key, result })}\n`);
    },
    size: () => done.size,
  };
}
