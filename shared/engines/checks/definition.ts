import { createHash } from 'node:crypto';
import { canonicalJson } from '../../contracts/schemas/index.ts';
import type { CheckKind, CodeLanguage, OutputType } from './contract.ts';

interface DefinitionCommon {
  /** Unique; `[a-z][a-z0-9_]*` so it can be a column value, a CLI argument and a file name. */
  name: string;
  description: string;
  outputType: OutputType;
  /** For `score`: inclusive range of values; defaults to [0, 1]. */
  range?: readonly [number, number];
  /** A score passes at or above it; pass_fail checks ignore it. */
  threshold?: number;
}

export interface ModelCheckDefinition extends DefinitionCommon {
  kind: 'model';
  /** Rubric with template variables (`{model_output}`, …); `{{` and `}}` are literal braces. */
  promptTemplate: string;
  /** Variables that must be present on the unit; without them the check answers `not_run`. */
  requires?: readonly string[];
  /** Judge model override. */
  model?: string;
  /**
   * `g_eval`, our extension (opt-in): a score is the scores the judge could have written, weighted by
   * their token probabilities (G-Eval), a float; the explanation keeps the whole number the judge
   * wrote. Without it a score is the number the judge wrote.
   */
  scoring?: 'g_eval';
}

export interface CodeCheckDefinition extends DefinitionCommon {
  kind: 'code';
  /**
   * A module exporting `evaluate(args)`, or a Python file as Okareo documents it
   * (`class Check(CodeBasedCheck)` with `evaluate(model_output, scenario_input, scenario_result)`);
   * it returns a boolean or a number.
   */
  source: string;
  language: CodeLanguage;
  timeoutMs?: number;
  /** upload_check's requires_scenario_input / _result: without them on the unit the check answers `not_run`. */
  requires?: readonly ('scenario_input' | 'scenario_result')[];
}

/** A check implemented in this repository (the deterministic tier and the catalog's code checks). */
export interface BuiltinCheckDefinition extends DefinitionCommon {
  kind: 'builtin';
  /** Bumped when the implementation changes meaning, so scores keep the version they were made with. */
  implementationVersion: string;
  /**
   * How it decides (the seven checks documented as judge checks): by the documented judge rubric
   * (`judge`), in code alone (`deterministic`), or `hybrid` (default): the code settles the cases it
   * settles with certainty and the judge decides the rest (the code alone when no judge is configured).
   */
  mode?: 'deterministic' | 'judge' | 'hybrid';
  params?: Record<string, unknown>;
}

export type CheckDefinition = ModelCheckDefinition | CodeCheckDefinition | BuiltinCheckDefinition;

// shared/engines/checks imports only its own folder and the schemas: permanent by its `retriable` field, which isRetriable reads.
// eslint-disable-next-line no-restricted-syntax
export class CheckDefinitionError extends Error {
  readonly retriable = false as const;
  constructor(readonly problems: string[]) {
    super(`invalid check definition: ${problems.join('; ')}`);
    this.name = 'CheckDefinitionError';
  }
}

const NAME_RE = /^[a-z][a-z0-9_]{0,99}$/;
const MAX_DESCRIPTION_CHARS = 10_000;

/** Problems common to every kind; kind-specific validation lives with each kind. */
export function validateCommon(def: CheckDefinition): string[] {
  const problems: string[] = [];
  // Definitions arrive as JSON from files and requests: every field is checked for its type too.
  if (typeof def.name !== 'string' || !NAME_RE.test(def.name)) problems.push(`name ${JSON.stringify(def.name)} must match ${NAME_RE.source}`);
  if (!(['model', 'code', 'builtin'] satisfies CheckKind[] as string[]).includes(def.kind)) problems.push(`unknown kind "${String(def.kind)}"`);
  if (def.outputType !== 'pass_fail' && def.outputType !== 'score') problems.push(`outputType must be pass_fail or score`);
  if (def.description !== undefined && (typeof def.description !== 'string' || def.description.length > MAX_DESCRIPTION_CHARS)) problems.push(`description must be text of at most ${MAX_DESCRIPTION_CHARS} characters`);
  if (def.range !== undefined) {
    const range: unknown = def.range;
    const ok = Array.isArray(range) && range.length === 2 && Number.isFinite(range[0]) && Number.isFinite(range[1]) && (range[0] as number) < (range[1] as number);
    if (!ok) problems.push(`range must be [min, max] with min < max`);
  }
  if (def.threshold !== undefined && !Number.isFinite(def.threshold)) problems.push('threshold must be a finite number');
  return problems;
}

/** The version of a definition: 16 hex digits of the SHA-256 of its canonical JSON. */
export function definitionVersion(def: CheckDefinition): string {
  return createHash('sha256').update(canonicalJson(def)).digest('hex').slice(0, 16);
}

export function effectiveRange(def: CheckDefinition): readonly [number, number] {
  return def.outputType === 'pass_fail' ? [0, 1] : (def.range ?? [0, 1]);
}
