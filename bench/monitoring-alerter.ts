import { AlertRuleSchema, createAlertRepository } from '../shared/engines/alerts/index.ts';
import { createSilentLogger } from '../shared/runtime/logging/index.ts';
import type { Store } from '../shared/adapters/store/index.ts';
import { createAlerter } from '../services/alerter/src/index.ts';

/**
 * One steady-state alerter evaluation of 100 rules over the benchmark's scores, in ms: 40 threshold rules (one
 * aggregate each), 40 regression rules (two) and 20 judge-health rules (one), as `tracecheck
 * alerter` runs them (8 rules at a time). Rules notify nobody, so only evaluation is timed.
 */
export async function benchAlerter(store: Store, setup: { checks: string[]; versions: string[]; now: number }): Promise<number> {
  const repo = createAlertRepository(store);
  const { checks, versions } = setup;
  for (let i = 0; i < 100; i++) {
    const check = checks[i % checks.length];
    const common = { id: `bench-rule-${i}`, project: 'default', created_at_ms: setup.now, updated_at_ms: setup.now, name: `bench ${i}`, notify: [], enabled: true };
    const rule =
      i < 40
        ? { ...common, kind: 'threshold', check, window: '1h', threshold: 0.9, metric: 'pass_rate', min_samples: 20, for_evaluations: 3, filters: { agent_version: versions[i % versions.length] } }
        : i < 80
          ? { ...common, kind: 'regression', check, baseline: { agent_version: 'v1' }, candidate: { agent_version: versions[1 + (i % (versions.length - 1))] }, alpha: 0.05, min_samples: 30, window: '7d' }
          : { ...common, kind: 'judge_health', window: '1d', max_error_rate: 0.05, min_samples: 20, for_evaluations: 3 };
    await repo.putRule(AlertRuleSchema.parse(rule));
  }
  const alerter = createAlerter({ store, log: createSilentLogger(), intervalMs: 60_000, now: () => setup.now });
  // The first pass loads and writes every rule's state; the one timed is a steady-state pass, as
  // every later interval runs it.
  await alerter.evaluateOnce(setup.now);
  const t0 = performance.now();
  const report = await alerter.evaluateOnce(setup.now + 1_000);
  const ms = performance.now() - t0;
  if (report.evaluated !== 100 || report.failed !== 0) throw new Error(`alerter evaluated ${report.evaluated} rules, ${report.failed} failed`);
  await alerter.shutdown();
  return ms;
}
