import type { CheckContext, CheckInput, CheckOutcome, RunnableCheck } from './contract.ts';
import type { BuiltinCheckDefinition, CheckDefinition } from './definition.ts';
import { CheckDefinitionError, definitionVersion, effectiveRange, validateCommon } from './definition.ts';
import { DEFAULT_JUDGE_MODE, JUDGE_MODES, runInMode, type JudgeRubricOption } from './lib/judge-mode.ts';

export type BuiltinRun = (input: CheckInput, ctx: CheckContext, def: BuiltinCheckDefinition) => Promise<CheckOutcome> | CheckOutcome;

/** A catalog entry: the definition users see, and how to build it (again, when they reconfigure it). */
export interface CatalogEntry {
  definition: CheckDefinition;
  /** The template variables it reads. */
  inputs: readonly string[];
  /** How it decides: in code, in code with the judge on doubt, or by the judge. */
  method: 'deterministic' | 'hybrid' | 'model';
  build(def: CheckDefinition): RunnableCheck;
}

export interface BuiltinOptions {
  /** How it decides, when not from `mode`: a builtin may ask the judge itself (uniqueness). */
  method?: CatalogEntry['method'];
  usesCodeRunner?: boolean;
  /** Reads `ctx.batch`: the other outputs scored with this one (uniqueness). */
  comparesRows?: boolean;
  /** The documented judge rubric: the check runs under a mode, `hybrid` unless its definition says otherwise. */
  judge?: JudgeRubricOption;
}

function createBuiltinCheck(def: BuiltinCheckDefinition, run: BuiltinRun, options: BuiltinOptions = {}): RunnableCheck {
  const problems = validateCommon(def);
  if (def.mode !== undefined && !JUDGE_MODES.includes(def.mode)) problems.push(`mode must be one of ${JUDGE_MODES.join(', ')}`);
  else if (def.mode !== undefined && def.mode !== 'deterministic' && !options.judge && options.method !== 'hybrid') problems.push(`${def.name} is decided in code only; it has no mode "${def.mode}"`);
  if (problems.length > 0) throw new CheckDefinitionError(problems);
  return {
    name: def.name,
    version: definitionVersion(def),
    kind: 'builtin',
    outputType: def.outputType,
    description: def.description,
    ...(def.outputType === 'score' ? { range: effectiveRange(def) } : {}),
    ...(def.threshold !== undefined ? { threshold: def.threshold } : {}),
    ...(options.usesCodeRunner ? { usesCodeRunner: true } : {}),
    ...(options.comparesRows ? { comparesRows: true } : {}),
    run: async (input, ctx) => runInMode(def.mode, options.judge, input, ctx, () => run(input, ctx, def)),
  };
}

function methodOf(mode: BuiltinCheckDefinition['mode']): CatalogEntry['method'] {
  return mode === 'judge' ? 'model' : mode === 'hybrid' ? 'hybrid' : 'deterministic';
}

/** A catalog entry decided in code; `build` refuses a definition of another kind. */
export function builtinEntry(definition: BuiltinCheckDefinition, inputs: readonly string[], run: BuiltinRun, options: BuiltinOptions = {}): CatalogEntry {
  return {
    definition,
    inputs,
    method: options.method ?? methodOf(definition.mode ?? (options.judge ? DEFAULT_JUDGE_MODE : undefined)),
    build(def) {
      if (def.kind !== 'builtin') throw new CheckDefinitionError([`${definition.name} is a builtin check; got kind ${def.kind}`]);
      return createBuiltinCheck(def, run, options);
    },
  };
}
