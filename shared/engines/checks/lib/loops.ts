import type { ChatMessage, UnitToolCall } from '../../../contracts/schemas/index.ts';
import { clip } from './tool-results.ts';
import { canonicalArgs, lengthBound, normalizeText, textSimilarity } from './text.ts';

export interface LoopOptions {
  /** Occurrences that make a loop (default 3: the thing and two repeats). */
  minOccurrences: number;
  /** Normalized similarity at which two assistant turns say the same thing (default 0.9). */
  similarity: number;
  /** Content-word similarity at which two turns say the same thing in other words (default 0.5). */
  paraphrase: number;
}

const DEFAULT_LOOP_OPTIONS: LoopOptions = { minOccurrences: 3, similarity: 0.9, paraphrase: 0.5 };

export function loopOptions(params: Record<string, unknown> | undefined): LoopOptions {
  const n = params?.minOccurrences;
  const s = params?.similarity;
  const p = params?.paraphrase;
  return {
    minOccurrences: typeof n === 'number' && n >= 2 ? Math.floor(n) : DEFAULT_LOOP_OPTIONS.minOccurrences,
    similarity: typeof s === 'number' && s > 0 && s <= 1 ? s : DEFAULT_LOOP_OPTIONS.similarity,
    paraphrase: typeof p === 'number' && p > 0 && p <= 1 ? p : DEFAULT_LOOP_OPTIONS.paraphrase,
  };
}

/**
 * Assistant turns that repeat an earlier one with no new information between: every non-assistant
 * message in between is empty or repeats something already said before the earlier turn.
 * Returns runs of message indexes (each run ≥ minOccurrences long).
 */
export function repeatedTurns(messages: readonly ChatMessage[], opts: LoopOptions): { indexes: number[]; text: string }[] {
  const runs: { indexes: number[]; text: string }[] = [];
  const seen = new Set<string>();
  let run: number[] = [];
  let runText = '';
  let newInfo = false;
  const close = (): void => {
    if (run.length >= opts.minOccurrences) runs.push({ indexes: run, text: runText });
  };
  messages.forEach((m, i) => {
    const text = normalizeText(m.content);
    if (m.role !== 'assistant' || text === '') {
      // Tool results and user turns are new information unless they repeat something already seen.
      if (text !== '' && !seen.has(`${m.role}:${text}`)) newInfo = true;
      if (text !== '') seen.add(`${m.role}:${text}`);
      return;
    }
    const speaker = m.name ?? '';
    const same = run.length > 0 && !newInfo && (messages[run[0]].name ?? '') === speaker &&
      lengthBound(runText, text) >= opts.similarity && textSimilarity(runText, text) >= opts.similarity;
    if (same) run.push(i);
    else {
      close();
      run = [i];
      runText = text;
    }
    newInfo = false;
    seen.add(`assistant:${text}`);
  });
  close();
  return runs;
}

interface Action {
  index: number;
  sig: string;
  label: string;
}

function actionsOf(calls: readonly UnitToolCall[]): Action[] {
  return calls.map((c, i) => ({
    index: i,
    // The result is part of the signature: the same call with a new result brought new information.
    sig: `${c.name}\u0000${canonicalArgs(c.arguments)}\u0000${c.error ?? ''}\u0000${c.result ?? ''}`,
    label: `${c.name}(${clip(c.arguments, 50)})`,
  }));
}

/** The same call with the same arguments and the same result, minOccurrences times or more. */
export function repeatedCalls(calls: readonly UnitToolCall[], opts: LoopOptions): { label: string; calls: number[] }[] {
  const bySig = new Map<string, Action[]>();
  for (const a of actionsOf(calls)) bySig.set(a.sig, [...(bySig.get(a.sig) ?? []), a]);
  return [...bySig.values()]
    .filter((list) => list.length >= opts.minOccurrences)
    .map((list) => ({ label: list[0].label, calls: list.map((a) => a.index + 1) }));
}

/** A sequence of 2–4 different actions (with the same results) repeated back to back minOccurrences times. */
export function actionCycles(calls: readonly UnitToolCall[], opts: LoopOptions): { labels: string[]; from: number; laps: number }[] {
  const acts = actionsOf(calls);
  const found: { labels: string[]; from: number; laps: number }[] = [];
  for (let period = 2; period <= 4; period++) {
    let start = 0;
    while (start + period * opts.minOccurrences <= acts.length) {
      const pattern = acts.slice(start, start + period);
      if (new Set(pattern.map((a) => a.sig)).size < period) {
        start++;
        continue;
      }
      let laps = 1;
      while (start + (laps + 1) * period <= acts.length && pattern.every((a, k) => acts[start + laps * period + k].sig === a.sig)) laps++;
      if (laps >= opts.minOccurrences) {
        found.push({ labels: pattern.map((a) => a.label), from: start + 1, laps });
        start += laps * period;
      } else start++;
    }
  }
  return found;
}

/** Assistant turns with text: fewer than two cannot repeat one another. */
export function assistantTurns(messages: readonly ChatMessage[]): number {
  return messages.filter((m) => m.role === 'assistant' && (m.content ?? '').trim() !== '').length;
}
