import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { CheckDefinition, CheckRegistry } from '../../shared/engines/checks/index.ts';
import { CheckDefinitionError, createCheckRegistry, definitionVersion } from '../../shared/engines/checks/index.ts';
import { PermanentError } from '../../shared/runtime/errors/index.ts';

/**
 * The user's own checks: JSON Lines of check definitions (TRACECHECK_CHECK_DEFINITIONS), one
 * definition per line, appended as they are created. A name written again with another definition
 * is a new version of that check; every version stays readable (scores keep the version they were
 * made with). The CLI (`tracecheck checks`, `score --definitions`, the services) and the API read
 * and write checks through this one module.
 */
export interface UserChecks {
  /** The catalog plus every user definition, in file order. */
  registry: CheckRegistry;
  /** Names defined in the file, first-definition order. */
  userNames(): string[];
  /** Validates, registers and appends; an unchanged definition is not written again. */
  save(def: CheckDefinition): { version: string; created: boolean; versions: number };
}

export class CheckStoreError extends PermanentError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CheckStoreError';
  }
}

export function openUserChecks(file: string | null): UserChecks {
  const registry = createCheckRegistry();
  const names: string[] = [];
  if (file && existsSync(file)) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      try {
        const def = JSON.parse(line) as CheckDefinition;
        registry.createOrUpdateCheck(def);
        if (!names.includes(def.name)) names.push(def.name);
      } catch (err) {
        throw new CheckStoreError(`${file}:${i + 1}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    });
  }
  return {
    registry,
    userNames: () => [...names],
    save(def) {
      if (registry.catalogEntry(def.name)) throw new CheckDefinitionError([`"${def.name}" is a predefined check; choose another name`]);
      const before = registry.get(def.name)?.version;
      const check = registry.createOrUpdateCheck(def);
      const created = check.version !== before;
      if (created && file) appendFileSync(file, `${JSON.stringify(def)}\n`);
      if (!names.includes(def.name)) names.push(def.name);
      return { version: definitionVersion(def), created, versions: registry.history(def.name).length };
    },
  };
}
