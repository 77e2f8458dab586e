import type { Problem } from './problem.ts';

/** The check that failed most often with the problem (its name, without the verdict), or null when no check failed with it. */
export function mainCheck(p: Pick<Problem, 'checks'>): string | null {
  let best: [string, number] | null = null;
  for (const [key, n] of Object.entries(p.checks)) if (!best || n > best[1] || (n === best[1] && key < best[0])) best = [key, n];
  if (!best) return null;
  const colon = best[0].lastIndexOf(':');
  return colon > 0 ? best[0].slice(0, colon) : best[0];
}
