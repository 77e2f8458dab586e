import { createCachedGenerator } from './cached-generator.ts';
import type { Generator } from './generation.ts';
import { createModuleGenerator } from './module-generator.ts';
import { createOpenAiGenerator } from './openai-generator.ts';

export interface EvalGeneratorOptions {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Null: no cache. */
  cacheDir: string | null;
}

/** Chat prompts through the `openai` client, modules in their own process, both cached on disk. */
export function createEvalGenerator(options: EvalGeneratorOptions): Generator {
  const chat = createOpenAiGenerator(options);
  const modules = createModuleGenerator(options);
  const router: Generator = {
    generate: (req) => (req.kind === 'module' ? modules.generate(req) : chat.generate(req)),
    close: async () => {
      await chat.close();
      await modules.close();
    },
  };
  return options.cacheDir ? createCachedGenerator(router, options.cacheDir) : router;
}
