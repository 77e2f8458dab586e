import type { OutputType } from './contract.ts';

/** `at`: where a score's number starts in the answer text (G-Eval reads that token's alternatives). */
export type JudgeAnswer = { ok: true; value: number; explanation: string; at?: number } | { ok: false; error: string };

const TRUE_WORDS = new Set(['true', 'yes', 'pass', 'passed', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'fail', 'failed', 'n', '0']);

interface Explanation {
  start: number;
  end: number;
  text: string;
}

/**
 * The `((…))` parts of an answer, in order. An explanation often quotes the graded output, which
 * is hostile text and may contain `[[True]]`: nothing inside one may be read as the verdict. An
 * unclosed `((` runs to the end of the answer, so a quote cannot escape by omitting its close.
 */
function explanations(text: string): Explanation[] {
  const out: Explanation[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('((', from);
    if (open < 0) return out;
    const close = text.indexOf('))', open + 2);
    const end = close < 0 ? text.length : close + 2;
    out.push({ start: open, end, text: text.slice(open + 2, close < 0 ? text.length : close) });
    from = end;
  }
}

/**
 * Reads the judge's `[[value]]` and optional `((explanation))`. The value is read only outside
 * `((…))`; there the last `[[…]]` wins (a judge that restates the format before answering is still
 * read right). Tolerates whitespace, quotes and a trailing period; anything that is not a clear
 * value is an error, never a guess.
 */
export function parseJudgeAnswer(text: string, outputType: OutputType, range: readonly [number, number]): JudgeAnswer {
  const parts = explanations(text);
  // Each explanation blanked out (same length, so indexes still match the text).
  let outside = '';
  let at = 0;
  for (const p of parts) {
    outside += text.slice(at, p.start) + ' '.repeat(p.end - p.start);
    at = p.end;
  }
  outside += text.slice(at);
  const values = [...outside.matchAll(/\[\[([\s\S]*?)\]\]/g)];
  const last = values.at(-1);
  if (!last) {
    // Okareo's own check templates ask for the bare value ("Return ONLY a single integer", "Return
    // only \"true\" or \"false\"", okareo-mcp src/templates/): an answer that is nothing but a value is read.
    const bare = text.trim();
    if (bare.length > 0 && bare.length <= 32 && parts.length === 0) {
      const read = parseJudgeAnswer(`[[${bare}]]`, outputType, range);
      if (read.ok) return { ...read, ...(read.at !== undefined ? { at: text.indexOf(bare) + read.at - 2 } : {}) };
      if (read.error.includes(', outside [')) return read;
    }
    return { ok: false, error: `judge answer has no [[value]] outside ((…)): ${JSON.stringify(text.slice(0, 200))}` };
  }
  const raw = last[1].trim().replace(/^["'`*]+|["'`*]+$/g, '').replace(/\.$/, '').trim();
  const verdictEnd = (last.index ?? 0) + last[0].length;
  const expl = parts.find((p) => p.start >= verdictEnd) ?? parts[0];
  const explanation = expl ? expl.text.trim() : '';
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
  return { ok: true, value, explanation, at: text.indexOf(raw, last.index) };
}
