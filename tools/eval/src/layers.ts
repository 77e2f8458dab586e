import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EvalConfigError } from './eval-error.ts';
import type { Place } from './suite-types.ts';
import type { YamlFile, YamlPath } from './yaml-file.ts';
import { readYamlFile } from './yaml-file.ts';

/** One key's value and where it was written: the last layer to set a key wins. */
export interface Layered {
  value: unknown;
  file: YamlFile | null;
  path: YamlPath;
}

export type Layers = Map<string, Layered>;

const COMMAND_LINE = '(command line)';

/** Other spellings of keys, as llmeval files write them: `ntries` is `n_tries`. */
const KEY_ALIASES: Readonly<Record<string, string>> = { ntries: 'n_tries' };
export const canonicalKey = (key: string): string => KEY_ALIASES[key] ?? key;

/** A `defaults` entry as written, or with `.yaml` / `.yml` added (llmeval lists `tests/math` without one). */
function defaultsPath(base: string, rel: string): string {
  const path = resolve(base, rel);
  if (existsSync(path)) return path;
  return ['.yaml', '.yml'].map((ext) => path + ext).find((p) => existsSync(p)) ?? path;
}

export function placeOf(l: Layered, sub: YamlPath = []): Place {
  if (!l.file) return { file: COMMAND_LINE, line: undefined };
  return { file: l.file.display, line: l.file.lineOf([...l.path, ...sub]) };
}

export function errorAt(l: Layered, sub: YamlPath, message: string): EvalConfigError {
  if (!l.file) return new EvalConfigError(`${String(l.path.join('.'))}: ${message}`, COMMAND_LINE);
  return l.file.error([...l.path, ...sub], message);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function mappingOf(file: YamlFile): Record<string, unknown> {
  if (file.data === null || file.data === undefined) return {};
  if (!isPlainObject(file.data)) throw file.error([], 'expected a mapping of keys to values at the top of the file');
  return file.data;
}

/**
 * The keys of `file` on top of the files its `defaults` names (paths relative to it, in order,
 * each composed the same way). A cycle is an error.
 */
export function composeFile(file: YamlFile, seen: ReadonlySet<string> = new Set([file.path])): Layers {
  const obj = mappingOf(file);
  const out: Layers = new Map();
  const defaults = obj.defaults;
  if (defaults !== undefined && defaults !== null) {
    if (isPlainObject(defaults)) {
      for (const [k, v] of Object.entries(defaults)) out.set(canonicalKey(k), { value: v, file, path: ['defaults', k] });
    } else {
      const list = typeof defaults === 'string' ? [defaults] : defaults;
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
        throw file.error(['defaults'], 'defaults must be a file path, a list of file paths, or a mapping of default values');
      }
      list.forEach((rel, i) => {
        const where: YamlPath = typeof defaults === 'string' ? ['defaults'] : ['defaults', i];
        const path = defaultsPath(dirname(file.path), rel);
        if (seen.has(path)) throw file.error(where, `defaults cycle: ${rel} is already being loaded`);
        let sub: YamlFile;
        try {
          sub = readYamlFile(path);
        } catch (err) {
          if (err instanceof EvalConfigError && err.line === undefined) throw file.error(where, `cannot load defaults file ${rel}: ${err.detail}`);
          throw err;
        }
        for (const [k, v] of composeFile(sub, new Set([...seen, path]))) out.set(k, v);
      });
    }
  }
  for (const [k, v] of Object.entries(obj)) if (k !== 'defaults') out.set(canonicalKey(k), { value: v, file, path: [k] });
  return out;
}
