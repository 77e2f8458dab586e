import { createCachedGenerator } from './cached-generator.ts';
import type { Generator } from './generation.ts';
import { createModuleGenerator } from './module-generator.ts';
import { createOpenAiGenerator } from './openai-generator.ts';
import { createPythonGenerator } from './python-generator.ts';
import type { SnippetRunner } from './run-metrics.ts';

export interface EvalGeneratorOptions {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Null: no cache. */
  cacheDir: string | null;
  /** Runs prompt `code:` (llmeval's custom message code). */
  snippets?: SnippetRunner | null;
}

/** Chat prompts through the `openai` client, modules in their own process, Python prompt code in the sandbox; cached on disk. */
export function createEvalGenerator(options: EvalGeneratorOptions): Generator {
  const chat = createOpenAiGenerator(options);
  const modules = createModuleGenerator(options);
  const python = createPythonGenerator({ snippets: options.snippets ?? null, chat });
  const router: Generator = {
    generate: (req) => (req.kind === 'module' ? modules.generate(req) : req.kind === 'python' ? python.generate(req) : chat.generate(req)),
    close: async () => {
      await chat.close();
      await modules.close();
    },
  };
  return options.cacheDir ? createCachedGenerator(router, options.cacheDir) : router;
}
