import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { getDataset, toLlmevalTests, type Dataset } from '../../shared/engines/review/index.ts';
import type { Config } from '../../shared/runtime/config/index.ts';
import type { Logger } from '../../shared/runtime/logging/index.ts';
import { EvalConfigError } from '../../tools/eval/src/index.ts';
import { createStore } from '../compose.ts';
import { ServerApiError, findRunningServer, serverApi } from '../running-server.ts';
import { datasetPath } from './datasets.ts';

/**
 * The references of `tracecheck eval --dataset REF`: a stored dataset (`NAME` or `NAME@VERSION` of
 * the project, read from the configured store) or an exported llmeval tests file. They replace every
 * selected prompt's references, exactly as the exported file pulled in by `defaults:` would.
 */
export async function datasetReferences(ref: string, named: string | undefined, config: Config, log: Logger, key: string | undefined): Promise<unknown[]> {
  const project = named ?? 'default';
  let text: string;
  const server = existsSync(ref) ? null : findRunningServer(config);
  if (existsSync(ref)) text = readFileSync(ref, 'utf8');
  else if (server) {
    try {
      text = toLlmevalTests(await serverApi(server, key, named).call<Dataset>('GET', datasetPath(ref)));
    } catch (err) {
      if (!(err instanceof ServerApiError)) throw err;
      throw new EvalConfigError(`--dataset: ${err.status === 404 ? `no dataset "${ref}" in the project (and no such file)` : err.message}`, '(command line)');
    }
  } else {
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
