import type { ChatRequest } from './request.ts';

const QUESTION = /what\s+is\s+(-?\d+(?:\.\d+)?)\s*([-+*/x×÷])\s*(-?\d+(?:\.\d+)?)/i;

function format(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toFixed(4)));
}

/**
 * "What is a <op> b?" answered as a bare number. `mock-sloppy` is deliberately wrong (one too
 * many) when temperature > 0.5 and a + b is odd, so eval suites have a deterministic share of
 * failures; every other model is always right.
 */
export function answerArithmetic(text: string, request: ChatRequest): string | null {
  const m = QUESTION.exec(text);
  if (!m) return null;
  const a = Number(m[1]);
  const b = Number(m[3]);
  const op = m[2];
  let result: number;
  if (op === '+') result = a + b;
  else if (op === '-') result = a - b;
  else if (op === '*' || op === 'x' || op === 'X' || op === '×') result = a * b;
  else {
    if (b === 0) return 'undefined';
    result = a / b;
  }
  if (isSloppy(request, a, b)) result += 1;
  return format(result);
}

function isSloppy(request: ChatRequest, a: number, b: number): boolean {
  if (request.model !== 'mock-sloppy') return false;
  const temperature = request.temperature ?? 1;
  if (!(temperature > 0.5)) return false;
  const sum = a + b;
  return Number.isInteger(sum) && Math.abs(sum) % 2 === 1;
}
