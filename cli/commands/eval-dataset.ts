import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { getDataset, toLlmevalTests } from '../../shared/engines/review/index.ts';
import type { Config } from '../../shared/runtime/config/index.ts';
import type { Logger } from '../../shared/runtime/logging/index.ts';
import { EvalConfigError } from '../../tools/eval/src/index.ts';
import { createStore } from '../compose.ts';

/**
 * The references of `tracecheck eval --dataset REF`: a stored dataset (`NAME` or `NAME@VERSION` of
 * the project, read from the configured store) or an exported llmeval tests file. They replace every
 * selected prompt's references, exactly as the exported file pulled in by `defaults:` would.
 */
export async function datasetReferences(ref: string, project: string, config: Config, log: Logger): Promise<unknown[]> {
  let text: string;
  if (existsSync(ref)) text = readFileSync(ref, 'utf8');
  else {
    const store = createStore(config, log);
    await store.start();
    try {
      const d = await getDataset(store, project, ref);
      if (!d) throw new EvalConfigError(`--dataset: no dataset "${ref}" in project "${project}" (and no such file)`, '(command line)');
      text = toLlmevalTests(d);
    } finally {
      await store.shutdown();
    }
  }
  const refs = (parse(text) as { references?: unknown } | null)?.references;
  if (!Array.isArray(refs) || refs.length === 0) throw new EvalConfigError(`--dataset ${ref}: no references in it`, '(command line)');
  return refs as unknown[];
}
