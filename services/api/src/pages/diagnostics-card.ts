import type { Diagnostic } from '../../../../shared/engines/diagnose/index.ts';
import { h, type Html } from './html.ts';

// What a unit (or a service's latest units) is missing, each with the setting that fixes it: shown
// above the dialog, since a missing dialog makes every check that reads it `not_run`.

/** One finding: what is missing, then the fix. `extra` adds a line (how many units have it). */
export function diagnosticItem(d: Pick<Diagnostic, 'code' | 'message' | 'fix'>, extra: Html | null = null): Html {
  return h`<li data-diagnostic="${d.code}"><div><code>${d.code}</code> ${d.message}</div><div><strong>Fix:</strong> <span data-fix>${d.fix}</span></div>${extra}</li>`;
}

/** The unit's findings as a card; nothing when it misses nothing. */
export function diagnosticsCard(diagnostics: readonly Diagnostic[]): Html | null {
  if (diagnostics.length === 0) return null;
  return h`<div class="card firing-list" data-diagnostics><strong>What this unit is missing</strong><ul>${diagnostics.map((d) => diagnosticItem(d))}</ul></div>`;
}
