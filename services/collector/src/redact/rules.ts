import { setFlagsFromString } from 'node:v8';
import type { RedactionRule } from '../../../../shared/runtime/config/index.ts';

export interface CompiledRule {
  name: string;
  pattern?: RegExp;
  attributes?: ReadonlySet<string>;
  /** undefined: every project. */
  projects?: ReadonlySet<string>;
}

let linearEngine = false;

/**
 * A user's pattern runs on hostile text, so it runs on V8's linear-time engine (the `l` flag,
 * behind a V8 flag that only adds that engine; patterns without the flag are untouched). The
 * engine refuses what it cannot run in linear time (back-references, look-arounds): such a rule
 * is refused at start-up rather than run by the backtracking engine.
 */
function compileLinear(source: string): RegExp {
  if (!linearEngine) {
    setFlagsFromString('--enable-experimental-regexp-engine');
    linearEngine = true;
  }
  // The engine takes no `i` flag (V8 20): a case-insensitive rule spells both cases ([Aa]).
  // eslint-disable-next-line no-invalid-regexp -- `l` (linear engine) is V8's, enabled just above.
  return new RegExp(source, 'gl');
}

/** Compiles the rules; throws an Error naming the rule that cannot run. */
export function compileRules(rules: readonly RedactionRule[]): CompiledRule[] {
  return rules.map((rule) => {
    const compiled: CompiledRule = { name: rule.name };
    if (rule.projects) compiled.projects = new Set(rule.projects);
    if (rule.attributes) compiled.attributes = new Set(rule.attributes);
    if (rule.pattern !== undefined) {
      try {
        compiled.pattern = compileLinear(rule.pattern);
      } catch (err) {
        throw new Error(`redaction rule "${rule.name}": the pattern cannot run in linear time or is invalid (no back-references or look-arounds): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      if (compiled.pattern.test('')) throw new Error(`redaction rule "${rule.name}": the pattern matches the empty string`);
      compiled.pattern.lastIndex = 0;
    }
    return compiled;
  });
}
