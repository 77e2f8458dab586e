import type { CodeLanguage, OutputType } from './contract.ts';
import type { CodeCheckDefinition } from './definition.ts';
import { unwrapCheckResponse } from './code-check.ts';

/** A score with no range given answers any number, as the SDK's SCORE checks do (a word count is 12). */
export const UNBOUNDED: readonly [number, number] = [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/** `CheckOutputType.SCORE` / `PASS_FAIL`, in any case, as the SDK and our CLI spell them. */
export function outputTypeOfCheckType(text: string): OutputType | null {
  const t = text.trim().toLowerCase().replace(/^checkoutputtype\./, '');
  return t === 'score' ? 'score' : t === 'pass_fail' ? 'pass_fail' : null;
}

/** The SDK's `output_data_type`: bool decides pass/fail, int and float a score. */
export function outputTypeOfDataType(text: string): OutputType | null {
  const t = text.trim().toLowerCase();
  if (t === 'bool' || t === 'boolean') return 'pass_fail';
  if (t === 'int' || t === 'float' || t === 'number' || t === 'integer') return 'score';
  return null;
}

/** The output type a sample value shows, for an upload that names none: a bool is pass/fail, a number a score. */
export function outputTypeOfValue(returned: unknown): OutputType | null {
  const { value } = unwrapCheckResponse(returned);
  if (typeof value === 'boolean') return 'pass_fail';
  if (typeof value === 'number') return 'score';
  return null;
}

export interface SdkCodeCheck {
  name: string;
  description: string;
  source: string;
  language: CodeLanguage;
  outputType: OutputType;
  requiresScenarioInput?: boolean;
  requiresScenarioResult?: boolean;
  range?: readonly [number, number];
  threshold?: number;
}

/** upload_check's fields as a definition: a score is unbounded unless a range is given. */
export function codeCheckFromSdk(c: SdkCodeCheck): CodeCheckDefinition {
  const requires = [...(c.requiresScenarioInput ? ['scenario_input' as const] : []), ...(c.requiresScenarioResult ? ['scenario_result' as const] : [])];
  return {
    kind: 'code',
    name: c.name,
    description: c.description,
    outputType: c.outputType,
    ...(c.outputType === 'score' ? { range: c.range ?? UNBOUNDED } : {}),
    ...(c.threshold !== undefined ? { threshold: c.threshold } : {}),
    source: c.source,
    language: c.language,
    ...(requires.length > 0 ? { requires } : {}),
  };
}

const SLUG_RE = /^[a-z][a-z0-9_]{0,99}$/;

/**
 * The name a check is stored and scored under, for a name as the SDK's users write it ("Example
 * Uploaded Check", "demo.summaryUnder256"): lower case, every run of other characters one `_`.
 * A name that already is one is itself, so both spellings find the same check.
 */
export function checkSlug(name: string): string {
  if (SLUG_RE.test(name)) return name;
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const lead = /^[a-z]/.test(slug) ? slug : `check_${slug}`.replace(/_+$/, '');
  return lead.slice(0, 100).replace(/_+$/, '');
}
