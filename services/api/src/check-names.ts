import type { Store } from '../../../shared/adapters/store/index.ts';
import { unknownCheckMessage, type CheckRegistry } from '../../../shared/engines/checks/index.ts';
import { listUserChecks } from '../../../shared/engines/monitors/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import type { Answer } from './route.ts';

// Check names are resolved once, at the API boundary, against the catalog (plus configured
// definitions) and the project's own checks: every route that names a check asks here, so a typo
// is a 400 with the closest names, never a rule that cannot fire or a queue that stays empty.

/** A check named by a request, and where (`body.check`, `query.check`, `body.checks.1`). */
interface NamedCheck {
  at: string;
  name: string;
}

export interface CheckNames {
  /** The names the project can run: the registry's and its stored checks'. */
  known(project: string): Promise<Set<string>>;
  /**
   * One `at: unknown check "x"; did you mean "y"?` per unknown name. `scored: true` also takes a
   * name the project has scores of (a check since removed from the registry still has its history).
   */
  problems(project: string, named: readonly NamedCheck[], options?: { scored?: boolean }): Promise<string[]>;
}

export function createCheckNames(deps: { store: Store; log: Logger; createRegistry: () => CheckRegistry }): CheckNames {
  const log = deps.log.child({ component: 'api.check-names' });
  const invalid = (doc: { id: string }): void => log.warn({ id: doc.id }, 'stored user check does not parse; skipped');

  async function known(project: string): Promise<Set<string>> {
    const names = new Set(deps.createRegistry().list().map((c) => c.name));
    for (const { check } of await listUserChecks(deps.store, invalid, project)) names.add(check.name);
    return names;
  }

  return {
    known,
    async problems(project, named, options = {}) {
      if (named.length === 0) return [];
      const names = await known(project);
      const out: string[] = [];
      for (const { at, name } of named) {
        if (names.has(name)) continue;
        if (options.scored === true && (await deps.store.queryScores({ project, check: name, limit: 1 })).length > 0) continue;
        out.push(`${at}: ${unknownCheckMessage(name, names)}`);
      }
      return out;
    },
  };
}

/** The 400 for unknown names, shaped as every refused request is (`error` plus one `issues` line per problem). */
export function refuseNames(problems: readonly string[]): Answer {
  return { status: 400, body: { error: `invalid request: ${problems.join('; ')}`, issues: [...problems] } };
}
