import { traceFacts } from './trace-facts.ts';
import { fencedBlocks, jsonStringOrText } from './fenced-data.ts';
import { textReply, type Reply } from './reply.ts';

/** A system prompt that asks for the verdict in double brackets. */
export function isJudgePrompt(system: string): boolean {
  return system.includes('[[');
}

/** A system prompt that asks to choose between two outputs, answering [[A]], [[B]] or [[tie]]. */
export function isPairwisePrompt(system: string): boolean {
  return /\[\[A\]\]/.test(system) && /\[\[B\]\]/.test(system);
}

/** A prompt that asks for a code check: a module exporting evaluate(...). */
export function isCodeGenerationPrompt(system: string, user: string): boolean {
  const both = `${system}\n${user}`;
  return /\bevaluate\s*\(/.test(both) && /\b(module|function|code)\b/i.test(both) && /\b(write|generate|create|implement)\b/i.test(both);
}

/** Words of a refusal, as a stand-in judge reads them. */
const DECLINING = /\b(?:can(?:'|no)t|cannot|won'?t|will not|unable to|not something i will|decline|refuse)\b/i;

interface Rubric {
  kind: 'pass_fail' | 'score';
  min: number;
  max: number;
}

/**
 * Pass/fail when the rubric names True/False; a score when it states a numeric range
 * ("score from 1 to 5", "between 0 and 10"); pass/fail otherwise.
 */
function detectRubric(system: string): Rubric {
  if (/\[\[\s*(true|false)\s*\]\]|\btrue\b[^.\n]{0,40}\bfalse\b/i.test(system)) return { kind: 'pass_fail', min: 0, max: 1 };
  const range = /\b(?:score|scale|rate|rating|range|from|between)\b[^.\n\d]{0,40}?(-?\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(-?\d+(?:\.\d+)?)/i.exec(system);
  if (range) {
    const a = Number(range[1]);
    const b = Number(range[2]);
    if (a !== b) return { kind: 'score', min: Math.min(a, b), max: Math.max(a, b) };
  }
  return { kind: 'pass_fail', min: 0, max: 1 };
}

// Quoted data may hold brackets; a parser must find our closing `))`, not one inside the quote.
function explanation(text: string): string {
  // Every adjacent pair is split, so a run of three or more cannot leave a pair behind.
  const safe = text.replace(/([[\]()])(?=\1)/g, '$1 ');
  return /[.!?]$/.test(safe) ? safe : `${safe}.`;
}

function clip(text: string, max = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * The judge rule: fail (or the lowest score) when a tool result in the data looks like an error or
 * the same assistant text or tool call repeats three or more times; pass (or the highest) otherwise.
 */
export function judge(system: string, user: string): Reply {
  // A rubric whose [[True]] is the bad outcome ("Reply [[True]] if the output refuses"): the data is
  // the output itself, and declining words in it are the refusal.
  if (/\[\[True\]\] if the output refuses/i.test(system)) {
    const refused = DECLINING.test(user);
    return textReply('judge', refused ? '[[True]]((The output declines the request.))' : '[[False]]((The output does not decline the request.))');
  }
  const rubric = detectRubric(system);
  const facts = traceFacts(user);
  let ok = true;
  let why = 'No tool errors and no repeated turns in the data; the task looks completed.';
  if (facts.toolError !== null) {
    ok = false;
    why = `A tool result is an error: ${clip(facts.toolError)}`;
  } else if (facts.repeated) {
    ok = false;
    why = `The same step repeats ${facts.repeated.times} times: ${clip(facts.repeated.what)}`;
  }
  const verdict = rubric.kind === 'pass_fail' ? (ok ? 'True' : 'False') : String(ok ? rubric.max : rubric.min);
  return textReply('judge', `[[${verdict}]]((${explanation(why)}))`);
}

function stripFence(text: string): string {
  const blocks = fencedBlocks(text);
  return (blocks.length === 1 && blocks[0] !== text ? blocks[0] : text).trim();
}

/** Pulls outputs A and B and an optional reference out of a pairwise prompt. */
function pairwiseParts(user: string): { a: string | null; b: string | null; reference: string | null } {
  const tag = (names: string): string | null => {
    const m = new RegExp(`<(${names})>([\\s\\S]*?)</\\1>`, 'i').exec(user);
    return m ? jsonStringOrText(m[2].trim()).trim() : null;
  };
  const a = tag('output_a|output-a|response_a|response-a|answer_a|candidate_a|a');
  const b = tag('output_b|output-b|response_b|response-b|answer_b|candidate_b|b');
  const reference = tag('reference|reference_answer|expected|expected_output');
  if (a !== null && b !== null) return { a, b, reference };
  // Heading form: "Output A:" … "Output B:" … ("Reference:" …), each section possibly fenced.
  const heading = /^\s*(?:#+\s*)?(?:(output|response|answer|candidate)\s+([AB])|(reference(?: answer)?|expected(?: output)?))\s*:?\s*$|^\s*(?:#+\s*)?(?:(output|response|answer|candidate)\s+([AB])|(reference(?: answer)?|expected(?: output)?))\s*:\s*(.*)$/gim;
  const marks: Array<{ key: 'a' | 'b' | 'reference'; start: number; end: number; inline: string }> = [];
  for (const m of user.matchAll(heading)) {
    const letter = (m[2] ?? m[5])?.toLowerCase();
    const key = letter === 'a' ? 'a' : letter === 'b' ? 'b' : 'reference';
    marks.push({ key, start: m.index, end: m.index + m[0].length, inline: m[7] ?? '' });
  }
  const found: Record<string, string> = {};
  marks.forEach((mark, i) => {
    const body = user.slice(mark.end, i + 1 < marks.length ? marks[i + 1].start : user.length);
    found[mark.key] = stripFence(`${mark.inline}\n${body}`);
  });
  return { a: a ?? found.a ?? null, b: b ?? found.b ?? null, reference: reference ?? found.reference ?? null };
}

/** Prefers the output that contains the reference; otherwise the longer one; tie when equal. */
export function pairwise(user: string): Reply {
  const { a, b, reference } = pairwiseParts(user);
  if (a === null || b === null) return textReply('pairwise', '[[tie]]((Could not find both outputs A and B.))');
  if (reference !== null && reference.length > 0) {
    const ref = reference.toLowerCase();
    const inA = a.toLowerCase().includes(ref);
    const inB = b.toLowerCase().includes(ref);
    if (inA && !inB) return textReply('pairwise', '[[A]]((Output A contains the reference answer; B does not.))');
    if (inB && !inA) return textReply('pairwise', '[[B]]((Output B contains the reference answer; A does not.))');
  }
  if (a.length > b.length) return textReply('pairwise', '[[A]]((Output A is more complete.))');
  if (b.length > a.length) return textReply('pairwise', '[[B]]((Output B is more complete.))');
  return textReply('pairwise', '[[tie]]((Both outputs are equally good.))');
}

function checkBody(returns: string): string {
  return `  const output = args && typeof args.model_output === 'string' ? args.model_output : '';
  return ${returns};`;
}

/**
 * A small check that passes when the model produced a non-empty output: a boolean, or for a
 * prompt asking for a number in [lo, hi], hi for a non-empty output and lo otherwise.
 */
export function generateCode(system: string, user: string): Reply {
  const prompt = `${system}\n${user}`;
  const range = /number\s+in\s+\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]/i.exec(prompt);
  const returns = range ? `output.trim().length > 0 ? ${Number(range[2])} : ${Number(range[1])}` : 'output.trim().length > 0';
  if (/CodeBasedCheck/.test(prompt)) return generatePython(prompt);
  const cjs = /module\.exports|commonjs/i.test(prompt);
  const code = cjs
    ? `module.exports.evaluate = function evaluate(args) {\n${checkBody(returns)}\n};`
    : `export function evaluate(args) {\n${checkBody(returns)}\n}`;
  const what = range ? `scores ${Number(range[2])} when the model produced a non-empty output and ${Number(range[1])} otherwise` : 'passes when the model produced a non-empty output';
  return textReply('codegen', `Here is a check that ${what}.\n\n\`\`\`javascript\n${code}\n\`\`\`\n`);
}

/** The SDK's generate_check answer: a CodeBasedCheck that passes (or scores its word count) on a non-empty output. */
function generatePython(prompt: string): Reply {
  const score = /Return type: (int|float)\b/.exec(prompt);
  const body = score ? '        return len((model_output or "").split())' : '        return bool((model_output or "").strip())';
  const code = `from okareo.checks import CodeBasedCheck\n\n\nclass Check(CodeBasedCheck):\n    @staticmethod\n    def evaluate(model_output: str) -> ${score ? score[1] : 'bool'}:\n${body}\n`;
  const what = score ? 'scores the number of words in the output' : 'passes when the model produced a non-empty output';
  return textReply('codegen', `Here is a check that ${what}.\n\n\`\`\`python\n${code}\`\`\`\n`);
}
