import type { ChatMessage } from '../../../contracts/schemas/index.ts';
import { normalizeText } from './text.ts';

// Loops that exact repetition misses: an assistant that repeats its offer in other words after
// the user already said yes, and two named agents handing the same request back and forth.

const STOPWORDS = new Set(
  ('a an the and or but if then so to of in on at for from by with about as is are was were be been being am do does did ' +
    'i me my we our you your he she it its they them their this that these those there here ' +
    'would could should shall will can may might must want like let go ahead just please now also again ' +
    'ok okay sure yes no not any some all what which who whom how when where why').split(' '),
);

/** Content words, crudely stemmed (plural s, -ing, -ed), so that rewordings of one offer share them. */
function contentWords(text: string | null | undefined): Set<string> {
  const out = new Set<string>();
  for (const w of normalizeText(text).split(' ')) {
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    out.add(w.length > 4 ? w.replace(/(ing|ed|es|s)$/, '') : w);
  }
  return out;
}

/** Dice overlap of two texts' content words (1 = the same words, in any order and phrasing). */
function paraphraseSimilarity(a: string | null | undefined, b: string | null | undefined): number {
  const x = contentWords(a);
  const y = contentWords(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return (2 * shared) / (x.size + y.size);
}

const AFFIRMATION = /^(yes|yeah|yep|yup|sure|ok|okay|please|go ahead|do it|sounds good|that works|correct|confirm|confirmed|absolutely|of course|definitely|right)\b/;

const AGREEING_WORDS = new Set(['thank', 'thanks', 'proceed', 'book', 'sound', 'sounds', 'good', 'great', 'fine', 'perfect', 'work', 'works', 'confirm', 'confirmed', 'correct', 'right', 'absolutely', 'definitely', 'course', 'that', 'it']);

/**
 * A short reply that only agrees: it starts with a yes, asks nothing, and brings nothing new (at
 * most one word beyond agreeing, no numbers). "Sure, my reservation id is 1N99U6" is an answer, not a yes.
 */
function isAffirmation(text: string | null | undefined): boolean {
  const t = normalizeText(text);
  if (t === '' || t.split(' ').length > 8 || !AFFIRMATION.test(t) || (text ?? '').includes('?') || /\d/.test(t)) return false;
  if (/\b(but|instead|actually|change|different|no|not)\b/.test(t)) return false;
  return [...contentWords(t)].filter((w) => !AGREEING_WORDS.has(w)).length <= 1;
}

export interface RepeatedOffer {
  /** Message indexes: the offer, the user's yes, and the reworded repeat. */
  offer: number;
  agreed: number;
  repeat: number;
  text: string;
}

/**
 * An assistant turn that, after the user agreed to it, says it again in other words instead of
 * acting on it: no tool call between, and content-word similarity ≥ `threshold`.
 */
export function repeatedOffers(messages: readonly ChatMessage[], threshold: number): RepeatedOffer[] {
  const found: RepeatedOffer[] = [];
  for (let u = 1; u < messages.length; u++) {
    if (messages[u].role !== 'user' || !isAffirmation(messages[u].content)) continue;
    const offer = previousAssistantText(messages, u);
    if (offer < 0) continue;
    const repeat = messages.findIndex((m, i) => i > u && m.role === 'assistant' && (m.tool_calls?.length ?? 0) === 0 && normalizeText(m.content) !== '');
    if (repeat < 0 || messages.slice(u + 1, repeat).some((m) => m.role !== 'assistant' || (m.tool_calls?.length ?? 0) > 0)) continue;
    if (paraphraseSimilarity(messages[offer].content, messages[repeat].content) >= threshold) {
      found.push({ offer, agreed: u, repeat, text: messages[repeat].content ?? '' });
    }
  }
  return found;
}

function previousAssistantText(messages: readonly ChatMessage[], before: number): number {
  for (let i = before - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'assistant') return normalizeText(m.content) !== '' && (m.tool_calls?.length ?? 0) === 0 ? i : -1;
    if (m.role === 'user') return -1;
  }
  return -1;
}

export interface AgentCycle {
  agents: [string, string];
  /** Indexes of the turns in the cycle, in order. */
  indexes: number[];
}

/**
 * Two named agents that take turns (A, B, A, B, …) where each says again, in any words, what it said
 * the turn before, with nothing new from a user or a tool between: they hand the same request back
 * and forth. `minLaps` A–B exchanges beyond the first are needed.
 */
export function agentCycles(messages: readonly ChatMessage[], threshold: number, minLaps: number): AgentCycle[] {
  const found: AgentCycle[] = [];
  let run: number[] = [];
  const close = (): void => {
    if (run.length >= 2 * (minLaps + 1)) found.push({ agents: [messages[run[0]].name!, messages[run[1]].name!], indexes: run });
    run = [];
  };
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') {
      // A user or tool turn is new information; an empty one is not.
      if (normalizeText(m.content) !== '') close();
      return;
    }
    if (!m.name || normalizeText(m.content) === '') {
      close();
      return;
    }
    const n = run.length;
    const fits =
      n < 2
        ? n === 0 || messages[run[0]].name !== m.name
        : m.name === messages[run[n - 2]].name && paraphraseSimilarity(messages[run[n - 2]].content, m.content) >= threshold;
    if (fits) run.push(i);
    else {
      const last = run.at(-1);
      close();
      // The turn may start a new pair with the one before it.
      if (last !== undefined && messages[last].name !== m.name) run = [last];
      run.push(i);
    }
  });
  close();
  return found;
}
