import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../../../shared/engines/checks/index.ts';
import type { Generation, GenerationRequest, Generator } from './generation.ts';

/** Content address of a request: everything that shapes the answer, never the API key. */
function generationKey(req: GenerationRequest): string {
  const { apiKey: _apiKey, timeoutMs: _timeout, modulePath: _path, ...rest } = req;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

/** Generations cached on disk, one file per request, so re-runs and resumes call no model twice. */
export function createCachedGenerator(inner: Generator, dir: string): Generator {
  return {
    async generate(req) {
      const key = generationKey(req);
      const path = join(dir, key.slice(0, 2), `${key}.json`);
      try {
        const hit = JSON.parse(await readFile(path, 'utf8')) as Omit<Generation, 'cached'>;
        if (typeof hit.output === 'string' && Array.isArray(hit.messages)) return { ...hit, cached: true };
      } catch {
        // A miss or a torn file: generate again.
      }
      const gen = await inner.generate(req);
      await mkdir(join(dir, key.slice(0, 2)), { recursive: true });
      const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(tmp, JSON.stringify({ output: gen.output, messages: gen.messages }));
      await rename(tmp, path);
      return gen;
    },
    close: () => inner.close(),
  };
}
