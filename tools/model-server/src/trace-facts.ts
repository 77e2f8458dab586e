import { fencedBlocks, isWholeJson, jsonValues } from './fenced-data.ts';

const ERROR_WORDS = /\b(error|errors|failed|failure|exception|timeout|timed out)\b/i;
const REPEAT_LIMIT = 3;

/** What the judge rule looks at in the fenced data. */
export interface TraceFacts {
  /** The first tool result that looks like an error, if any. */
  toolError: string | null;
  /** The most repeated assistant text or tool call, when it repeats REPEAT_LIMIT times or more. */
  repeated: { what: string; times: number } | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  return JSON.stringify(v);
}

function callKey(name: unknown, args: unknown): string | null {
  if (typeof name !== 'string') return null;
  let a = args;
  if (typeof a === 'string') {
    try {
      a = JSON.parse(a) as unknown;
    } catch {
      // arguments that are not JSON are compared as text
    }
  }
  return `${name}(${text(a)})`;
}

/** Tool-call keys held by one element of an array: an OpenAI message, a unit tool call, or a parts message. */
function callKeysOf(el: Json): string[] {
  const keys: string[] = [];
  if (Array.isArray(el.tool_calls)) {
    for (const c of el.tool_calls) {
      if (isObject(c) && isObject(c.function)) {
        const k = callKey(c.function.name, c.function.arguments);
        if (k) keys.push(k);
      }
    }
  }
  if (typeof el.name === 'string' && 'arguments' in el && el.role === undefined) {
    const k = callKey(el.name, el.arguments);
    if (k) keys.push(k);
  }
  if (Array.isArray(el.parts)) {
    for (const p of el.parts) {
      if (isObject(p) && p.type === 'tool_call') {
        const k = callKey(p.name, p.arguments);
        if (k) keys.push(k);
      }
    }
  }
  return keys;
}

/** Tool results held by one element: a tool message, a unit tool call's result/error, a response part. */
function toolResultsOf(el: Json): string[] {
  const out: string[] = [];
  if (el.role === 'tool') out.push(text(el.content));
  if (el.role === undefined && typeof el.name === 'string' && 'arguments' in el) {
    if (el.error !== null && el.error !== undefined && el.error !== '') out.push(`error: ${text(el.error)}`);
    if ('result' in el) out.push(text(el.result));
  }
  if (Array.isArray(el.parts)) {
    for (const p of el.parts) {
      if (isObject(p) && p.type === 'tool_call_response') out.push(text(p.response ?? p.result));
    }
  }
  return out;
}

function assistantTextOf(el: Json): string | null {
  if (el.role !== 'assistant') return null;
  const t = typeof el.content === 'string' ? el.content.trim() : '';
  return t.length > 0 ? t : null;
}

function walk(value: unknown, visit: (arr: unknown[]) => void): void {
  if (Array.isArray(value)) {
    visit(value);
    for (const v of value) walk(v, visit);
  } else if (isObject(value)) {
    for (const v of Object.values(value)) walk(v, visit);
  }
}

function mostRepeated(keys: string[]): { what: string; times: number } | null {
  const counts = new Map<string, number>();
  let best: { what: string; times: number } | null = null;
  for (const k of keys) {
    const n = (counts.get(k) ?? 0) + 1;
    counts.set(k, n);
    if (!best || n > best.times) best = { what: k, times: n };
  }
  return best;
}

/**
 * Plain-text transcripts, as people write them (tracecheck itself sends JSON):
 *   `[3] tool result for call_1: …` / `tool: …` lines are results,
 *   `    -> calls get_weather({"city":"Oslo"}) id=…` and `#2 get_weather(…) -> result|ERROR …` are calls,
 *   `[4] assistant: …` / `assistant: …` lines are assistant texts.
 */
function transcriptFacts(block: string): { toolError: string | null; calls: string[]; assistantTexts: string[] } {
  let toolError: string | null = null;
  const calls: string[] = [];
  const assistantTexts: string[] = [];
  const noteError = (text: string): void => {
    if (toolError === null && ERROR_WORDS.test(text)) toolError = text;
  };
  for (const raw of block.split('\n')) {
    const line = raw.trim();
    const result = /^(?:\[\d+\]\s*)?(?:tool|tool result|function)(?:\s*\([^)]*\))?(?:\s+result for \S+)?\s*:\s*(.*)$/i.exec(line);
    if (result) {
      noteError(result[1]);
      continue;
    }
    const arrowCall = /^->\s*calls\s+([\w.-]+)\((.*)\)(?:\s+id=\S*)?$/.exec(line);
    if (arrowCall) {
      const k = callKey(arrowCall[1], arrowCall[2]);
      if (k) calls.push(k);
      continue;
    }
    const listed = /^#\d+\s+([\w.-]+)\((.*)\)\s+->\s+(.*)$/.exec(line);
    if (listed) {
      const k = callKey(listed[1], listed[2]);
      if (k) calls.push(k);
      noteError(listed[3]);
      continue;
    }
    const assistant = /^(?:\[\d+\]\s*)?assistant(?:\s*\([^)]*\))?\s*:\s*(.+)$/i.exec(line);
    if (assistant && assistant[1].trim().length > 0) assistantTexts.push(assistant[1].trim());
    else if (/^tool call\b/i.test(line)) calls.push(line);
  }
  return { toolError, calls, assistantTexts };
}

/**
 * Reads the fenced data of a judge prompt. Repetitions are counted within one array at a time
 * (a message history, a tool-call list), so data that lists the same call in two places is not
 * counted twice.
 */
export function traceFacts(userText: string): TraceFacts {
  let toolError: string | null = null;
  let repeated: TraceFacts['repeated'] = null;
  const consider = (r: TraceFacts['repeated']): void => {
    if (r && r.times >= REPEAT_LIMIT && (!repeated || r.times > repeated.times)) repeated = r;
  };
  for (const block of fencedBlocks(userText)) {
    const values = jsonValues(block);
    const wholeJson = values.length === 1 && isWholeJson(block);
    for (const value of values) {
      walk(value, (arr) => {
        const elements = arr.filter(isObject);
        for (const el of elements) {
          for (const r of toolResultsOf(el)) if (toolError === null && ERROR_WORDS.test(r)) toolError = r;
        }
        consider(mostRepeated(elements.flatMap(callKeysOf)));
        consider(mostRepeated(elements.map(assistantTextOf).filter((t): t is string => t !== null)));
      });
    }
    if (!wholeJson) {
      const facts = transcriptFacts(block);
      if (toolError === null && facts.toolError !== null) toolError = facts.toolError;
      consider(mostRepeated(facts.calls));
      consider(mostRepeated(facts.assistantTexts));
    }
  }
  return { toolError, repeated };
}
