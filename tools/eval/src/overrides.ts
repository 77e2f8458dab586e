import { parse } from 'yaml';
import { EvalConfigError } from './eval-error.ts';
import { canonicalKey } from './layers.ts';

/**
 * `key=value` arguments (`ntries` is read as `n_tries`, never a model parameter); values are read as YAML scalars or flow collections, so `n_tries=1` is a
 * number and `temperature=[0,1]` a list (a sweep).
 */
export function parseOverrides(args: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new EvalConfigError(`expected key=value, got "${arg}"`, '(command line)');
    const key = canonicalKey(arg.slice(0, eq).trim());
    const raw = arg.slice(eq + 1);
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) throw new EvalConfigError(`invalid key "${key}"`, '(command line)');
    let value: unknown;
    try {
      value = raw === '' ? '' : (parse(raw) as unknown);
    } catch {
      value = raw;
    }
    out[key] = value;
  }
  return out;
}
