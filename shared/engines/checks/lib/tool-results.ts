import type { UnitToolCall } from '../../../contracts/schemas/index.ts';

function errorFieldOf(parsed: unknown): string | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const obj = parsed as Record<string, unknown>;
  const err = obj.error ?? obj.err ?? obj.exception;
  if (err !== undefined && err !== null && err !== false && err !== '') {
    return typeof err === 'string' ? err : JSON.stringify(err);
  }
  const status = typeof obj.status === 'string' ? obj.status.toLowerCase() : null;
  if (status === 'error' || status === 'failed' || status === 'failure') {
    return typeof obj.message === 'string' ? obj.message : `status ${status}`;
  }
  return null;
}

/**
 * Why a tool result is not a usable result, or null when it is. Error shapes recognized: a span or
 * call error, text that starts with `Error`/`Exception`/`Traceback`, and JSON objects carrying an
 * `error` member or `status: "error"`.
 */
export function toolResultProblem(result: string | null, error: string | null, emptyAllowed = false): string | null {
  if (error !== null && error.trim() !== '') return `error: ${clip(error)}`;
  if (result === null) return 'no result';
  const text = result.trim();
  // `[]` and `{}` are answers ("nothing found"); an empty text is not, unless the tool returns nothing by design.
  if (text === '' || text === '""') return emptyAllowed ? null : 'empty result';
  // Python's None (a tool result passed through str()) is as empty as JSON's null.
  if (/^(null|undefined|none)$/i.test(text)) return `empty result (${text})`;
  if (/^(error|exception|traceback)\b/i.test(text)) return `error result: ${clip(text)}`;
  if (text.startsWith('{')) {
    try {
      const field = errorFieldOf(JSON.parse(text));
      if (field !== null) return `error result: ${clip(field)}`;
    } catch {
      // Not JSON: the text itself is the result.
    }
  }
  return null;
}

export function clip(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function describeCall(call: UnitToolCall, index: number): string {
  return `#${index + 1} ${call.name}(${clip(call.arguments, 60)})`;
}
