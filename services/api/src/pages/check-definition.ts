import type { CheckDefinition, CheckRegistry } from '../../../../shared/engines/checks/index.ts';
import { rangeText } from './format.ts';
import { h, type Html } from './html.ts';

// A check as the pages describe it: kind, how it decides, what it reads, its code or prompt.

export type Method = 'deterministic' | 'hybrid' | 'model' | 'code';

export function methodOf(def: CheckDefinition): Method {
  if (def.kind === 'builtin') return def.mode === 'hybrid' ? 'hybrid' : def.mode === 'judge' ? 'model' : 'deterministic';
  return def.kind;
}

/** A user's own check: not in the catalog, or a catalog name redefined by the user. */
export function isUsersOwn(registry: CheckRegistry, name: string): boolean {
  const entry = registry.catalogEntry(name);
  return !entry || registry.history(name).length > 1;
}

export function definitionBlock(def: CheckDefinition): Html {
  return h`<div data-definition="${def.kind}">${definitionBody(def)}</div>`;
}

function definitionBody(def: CheckDefinition): Html {
  const common = h`<dl class="kv"><dt>kind</dt><dd>${def.kind}</dd><dt>method</dt><dd>${methodOf(def)}</dd><dt>output</dt><dd>${def.outputType}${def.outputType === 'score' ? ` ${rangeText(def.range ?? [0, 1])}` : ''}</dd>${def.threshold !== undefined ? h`<dt>passes at</dt><dd>≥ ${def.threshold}</dd>` : null}</dl>`;
  switch (def.kind) {
    case 'model':
      return h`${common}<h3>Prompt template${def.model ? ` (judge model ${def.model})` : ''}</h3><pre class="code">${def.promptTemplate}</pre>`;
    case 'code':
      return h`${common}<h3>Code (${def.language})</h3><pre class="code">${def.source}</pre>`;
    case 'builtin':
      return h`${common}<h3>Built in</h3><p class="muted">Implemented in tracecheck (implementation version ${def.implementationVersion}).</p>${def.params ? h`<pre class="code">${JSON.stringify(def.params, null, 2)}</pre>` : null}`;
  }
}
