import { Counter } from 'prom-client';
import type { Metrics } from '../../../../shared/kit/metrics/index.ts';
import type { RedactionMode, RedactionRule } from '../../../../shared/runtime/config/index.ts';
import { createRedactor, type Redactor } from './redactor.ts';
import { compileRules } from './rules.ts';

/** The collector's slice of the configuration (TRACECHECK_REDACTION, _RULES, _KEY). */
export interface RedactionConfig {
  mode: RedactionMode;
  rules: readonly RedactionRule[];
  /** Key of the identifiers' hashes; null: DEFAULT_REDACTION_KEY. */
  key: string | null;
}

/**
 * The key when none is set. It must be the same in every collector and after every restart: a
 * span re-sent after a crash must redact to the same record, or the assembler keeps it as a second
 * copy of the span (the embedded crash test saw units with every span twice), and one conversation
 * sent through two collectors must keep one id. Public, so it hides ids from a reader of the store
 * only as far as they cannot be guessed: a deployment sets its own secret (docs/privacy.md).
 */
export const DEFAULT_REDACTION_KEY = 'tracecheck-default-redaction-key-set-TRACECHECK_REDACTION_KEY';

/** The redactor for `config` (undefined when off), counting what it finds in `tracecheck_redactions_total`. */
export function createRedaction(config: RedactionConfig, metrics: Metrics | undefined): Redactor | undefined {
  if (config.mode === 'off') return undefined;
  const counter = metrics ? redactionCounter(metrics) : undefined;
  const mode = config.mode;
  return createRedactor({
    mode,
    rules: compileRules(config.rules),
    key: config.key ?? DEFAULT_REDACTION_KEY,
    onFound: (rule) => counter?.inc({ rule, mode }),
  });
}

/** `tracecheck_redactions_total`; one registry may serve two collectors (tests): the second reuses the first's counter. */
export function redactionCounter(metrics: Metrics): Counter<'rule' | 'mode'> {
  return (
    (metrics.registry.getSingleMetric('tracecheck_redactions_total') as Counter<'rule' | 'mode'> | undefined) ??
    new Counter({ name: 'tracecheck_redactions_total', help: 'Values found by each redaction rule (built-in kind or user rule), replaced when mode="redact", only counted when mode="detect"', labelNames: ['rule', 'mode'], registers: [metrics.registry] })
  );
}
