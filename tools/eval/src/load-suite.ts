import { EvalConfigError } from './eval-error.ts';
import { loadMainConfig } from './load-config.ts';
import { loadPrompt } from './load-prompt.ts';
import type { PromptSuite, Suite } from './suite-types.ts';

/**
 * Loads and validates a whole suite: the main config, every selected prompt file with the files
 * it pulls in, metric expressions and template variables. Throws EvalConfigError (file and line)
 * before anything is called.
 */
export function loadSuite(configPath: string, overrides: Record<string, unknown> = {}): Suite {
  const { config, promptBase, promptOverrides } = loadMainConfig(configPath, overrides);
  const prompts: PromptSuite[] = [];
  const byName = new Map<string, string>();
  for (const path of config.promptFiles) {
    const p = loadPrompt(path, promptBase, promptOverrides, config.nTries);
    const other = byName.get(p.name);
    if (other) throw new EvalConfigError(`prompt name "${p.name}" is also used by ${other}`, p.file, 1);
    byName.set(p.name, p.file);
    prompts.push(p);
  }
  if (config.promptNames) {
    const unknown = config.promptNames.filter((n) => !byName.has(n));
    if (unknown.length) throw new EvalConfigError(`prompts=${config.promptNames.join(',')}: no prompt named ${unknown.join(', ')} (known: ${[...byName.keys()].join(', ')})`, '(command line)');
    const wanted = new Set(config.promptNames);
    return { config, prompts: prompts.filter((p) => wanted.has(p.name)) };
  }
  return { config, prompts };
}
