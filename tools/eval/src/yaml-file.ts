import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { EvalConfigError } from './eval-error.ts';

export type YamlPath = ReadonlyArray<string | number>;

/** A parsed YAML file that can still say on which line each value was written. */
export interface YamlFile {
  /** Absolute path. */
  path: string;
  /** How errors name the file: relative to the working directory when that is shorter. */
  display: string;
  data: unknown;
  /** 1-based line of the value at `path` (or of the nearest existing parent). */
  lineOf(path: YamlPath): number | undefined;
  /** An EvalConfigError at the value `path`. */
  error(path: YamlPath, message: string): EvalConfigError;
}

export function displayPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

export function readYamlFile(path: string): YamlFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EvalConfigError(`cannot read file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, displayPath(path));
  }
  return parseYamlText(text, path);
}

function parseYamlText(text: string, path: string): YamlFile {
  const display = displayPath(path);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = lineCounter.linePos(first.pos[0]).line;
    const message = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new EvalConfigError(`invalid YAML: ${message}`, display, line);
  }
  const lineOf = (p: YamlPath): number | undefined => {
    for (let n = p.length; n >= 0; n--) {
      const node: unknown = n === 0 ? doc.contents : doc.getIn(p.slice(0, n), true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  return {
    path,
    display,
    data: doc.toJS({ maxAliasCount: 100 }) as unknown,
    lineOf,
    error: (p, message) => new EvalConfigError(message, display, lineOf(p)),
  };
}
