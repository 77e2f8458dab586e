import type { OutputType } from './contract.ts';

export type JudgeAnswer = { ok: true; value: number; explanation: string } | { ok: false; error: string };

const TRUE_WORDS = new Set(['true', 'yes', 'pass', 'passed', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'fail', 'failed', 'n', '0']);

/**
 * Reads the judge's `[[value]]` and optional `((explanation))`. The last `[[…]]` wins (a judge that
 * restates the format before answering is still read right). Tolerates whitespace, quotes and a
 * trailing period; anything that is not a clear value is an error, never a guess.
 */
export function parseJudgeAnswer(text: string, outputType: OutputType, range: readonly [number, number]): JudgeAnswer {
  const values = [...text.matchAll(/\[\[([\s\S]*?)\]\]/g)];
  const last = values.at(-1);
  if (!last) return { ok: false, error: `judge answer has no [[value]]: ${JSON.stringify(text.slice(0, 200))}` };
  const raw = last[1].trim().replace(/^["'`*]+|["'`*]+$/g, '').replace(/\.$/, '').trim();
  const after = text.slice((last.index ?? 0) + last[0].length);
  const expl = /\(\(([\s\S]*?)\)\)/.exec(after) ?? /\(\(([\s\S]*?)\)\)/.exec(text);
  const explanation = expl ? expl[1].trim() : '';
  if (outputType === 'pass_fail') {
    const word = raw.toLowerCase();
    if (TRUE_WORDS.has(word)) return { ok: true, value: 1, explanation };
    if (FALSE_WORDS.has(word)) return { ok: true, value: 0, explanation };
    return { ok: false, error: `judge answered [[${raw}]], not a pass/fail value` };
  }
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(raw)) return { ok: false, error: `judge answered [[${raw}]], not a number` };
  const value = Number(raw);
  const [lo, hi] = range;
  if (value < lo || value > hi) return { ok: false, error: `judge answered ${value}, outside [${lo}, ${hi}]` };
  return { ok: true, value, explanation };
}
