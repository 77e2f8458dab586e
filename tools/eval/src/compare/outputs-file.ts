import { toText } from '../expression/index.ts';
import { EvalConfigError } from '../eval-error.ts';
import { displayPath } from '../yaml-file.ts';
import { readJsonLines } from './jsonl.ts';

export interface OutputRecord {
  id: string | null;
  input: string | null;
  output: string;
  reference: string | null;
  line: number;
}

export interface AlignedPair {
  id: string;
  input: string | null;
  reference: string | null;
  a: string;
  b: string;
}

/** `{id?, input?, output, expected?}` per line. */
export function readOutputsFile(path: string): OutputRecord[] {
  return readJsonLines(path).map(({ line, value }) => {
    const v = value as Record<string, unknown> | null;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof v.output !== 'string') {
      throw new EvalConfigError('each line must be an object with "output" as text (and optionally "id", "input", "expected")', displayPath(path), line);
    }
    const id = v.id === undefined || v.id === null ? null : toText(v.id);
    const input = v.input === undefined || v.input === null ? null : toText(v.input);
    const reference = v.expected === undefined || v.expected === null ? null : toText(v.expected);
    return { id, input, output: v.output, reference, line };
  });
}

/** Pairs by id when every record of both files has one, else by line order (then the counts must match). */
export function alignOutputs(a: OutputRecord[], b: OutputRecord[], pathA: string, pathB: string): AlignedPair[] {
  const byId = a.every((r) => r.id !== null) && b.every((r) => r.id !== null);
  if (!byId) {
    if (a.length !== b.length) throw new EvalConfigError(`without an id on every line, both files must have as many lines: ${displayPath(pathA)} has ${a.length}, ${displayPath(pathB)} has ${b.length}`);
    return a.map((ra, i) => {
      const rb = b[i];
      return { id: ra.id ?? rb.id ?? String(i + 1), input: ra.input ?? rb.input, reference: ra.reference ?? rb.reference, a: ra.output, b: rb.output };
    });
  }
  const index = new Map<string, OutputRecord>();
  for (const r of b) {
    if (index.has(r.id!)) throw new EvalConfigError(`duplicate id "${r.id!}"`, displayPath(pathB), r.line);
    index.set(r.id!, r);
  }
  const seen = new Set<string>();
  const pairs = a.map((ra) => {
    if (seen.has(ra.id!)) throw new EvalConfigError(`duplicate id "${ra.id!}"`, displayPath(pathA), ra.line);
    seen.add(ra.id!);
    const rb = index.get(ra.id!);
    if (!rb) throw new EvalConfigError(`id "${ra.id!}" has no output in ${displayPath(pathB)}`, displayPath(pathA), ra.line);
    return { id: ra.id!, input: ra.input ?? rb.input, reference: ra.reference ?? rb.reference, a: ra.output, b: rb.output };
  });
  const extra = b.find((r) => !seen.has(r.id!));
  if (extra) throw new EvalConfigError(`id "${extra.id!}" has no output in ${displayPath(pathA)}`, displayPath(pathB), extra.line);
  return pairs;
}
