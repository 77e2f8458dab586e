import type { CatalogEntry } from './builtin-check.ts';
import { createCodeCheck } from './code-check.ts';
import type { RunnableCheck } from './contract.ts';
import type { CheckDefinition, ModelCheckDefinition } from './definition.ts';
import { CheckDefinitionError, definitionVersion } from './definition.ts';
import { catalogEntries } from './catalog/index.ts';
import { createModelCheck } from './model-check.ts';

interface RegisteredCheck {
  check: RunnableCheck;
  definition: CheckDefinition;
}

/** Checks by name, each with its version history. Same name → new version; old versions stay readable. */
export interface CheckRegistry {
  get(name: string): RunnableCheck | undefined;
  /** A specific version (scores keep the version they were made with). */
  getVersion(name: string, version: string): RunnableCheck | undefined;
  list(): RunnableCheck[];
  definition(name: string): CheckDefinition | undefined;
  /** Every version of a name, oldest first. */
  history(name: string): RegisteredCheck[];
  /** Validates, builds and registers; throws CheckDefinitionError listing the problems. */
  createOrUpdateCheck(def: CheckDefinition): RunnableCheck;
  /** The catalog entry for a predefined name. */
  catalogEntry(name: string): CatalogEntry | undefined;
}

export interface CheckRegistryOptions {
  /** Load the predefined catalog (default true). */
  catalog?: boolean;
}

function withoutScoring(def: ModelCheckDefinition): ModelCheckDefinition {
  const rest = { ...def };
  delete rest.scoring;
  return rest;
}

export function buildCheck(def: CheckDefinition, entry: CatalogEntry | undefined): RunnableCheck {
  switch (def.kind) {
    case 'model':
      // The catalog's own judge definition (with or without the G-Eval setting) keeps how the catalog
      // reads its score (a whole number); the same name redefined by a user is the user's plain model check.
      return entry?.definition.kind === 'model' && definitionVersion(entry.definition) === definitionVersion(withoutScoring(def)) ? entry.build(def) : createModelCheck(def);
    case 'code':
      return createCodeCheck(def);
    case 'builtin':
      if (!entry || entry.definition.kind !== 'builtin') throw new CheckDefinitionError([`no builtin implementation named "${def.name}"`]);
      return entry.build(def);
    default:
      throw new CheckDefinitionError([`unknown kind "${(def as { kind: unknown }).kind as string}"`]);
  }
}

export function createCheckRegistry(options: CheckRegistryOptions = {}): CheckRegistry {
  const versions = new Map<string, RegisteredCheck[]>();
  const catalog = new Map(catalogEntries.map((e) => [e.definition.name, e]));
  const register = (given: CheckDefinition): RunnableCheck => {
    // A predefined check reconfigured by a short line ({"kind": "builtin", "name": "loop_guard",
    // "mode": "judge"}, or {"kind": "model", "name": "fluency_summary", "scoring": "g_eval"} with no
    // template) keeps the rest of its catalog definition.
    const base = catalog.get(given.name)?.definition;
    const short = base?.kind === given.kind && (given.kind === 'builtin' || (given.kind === 'model' && given.promptTemplate === undefined));
    const def = short ? ({ ...base, ...given } as CheckDefinition) : given;
    const check = buildCheck(def, catalog.get(def.name));
    const list = versions.get(def.name) ?? [];
    const current = list.at(-1);
    if (current?.check.version === check.version) return current.check;
    list.push({ check, definition: def });
    versions.set(def.name, list);
    return check;
  };
  if (options.catalog !== false) for (const e of catalogEntries) register(e.definition);
  return {
    get: (name) => versions.get(name)?.at(-1)?.check,
    getVersion: (name, version) => versions.get(name)?.find((r) => r.check.version === version)?.check,
    list: () => [...versions.values()].map((l) => l.at(-1)!.check),
    definition: (name) => versions.get(name)?.at(-1)?.definition,
    history: (name) => [...(versions.get(name) ?? [])],
    createOrUpdateCheck: register,
    catalogEntry: (name) => catalog.get(name),
  };
}
