import { DEFAULT_PRICES, costUsd } from '../shared/engines/judge/index.ts';
import { DOC_KINDS, MonitorSchema, addStoredChecks, loadMonitorsFile, type Monitor } from '../shared/engines/monitors/index.ts';
import type { CodeRunner, JudgeClient } from '../shared/engines/checks/index.ts';
import type { Store } from '../shared/adapters/store/index.ts';
import type { Config } from '../shared/runtime/config/index.ts';
import type { Logger } from '../shared/runtime/logging/index.ts';
import { PermanentError } from '../shared/runtime/errors/index.ts';
import { backfillId, runBackfill, type BackfillProgress } from '../services/scorer/src/index.ts';
import type { ReadyBackfill, StartBackfill } from '../services/api/src/index.ts';
import { loadRegistry } from './check-runtime.ts';

// A backfill made ready to run, the same way whether `tracecheck backfill` runs it in its own
// process or the running `tracecheck up` runs it for the command (POST /api/v1/backfills): the
// check and monitor looked up in the project, the project's units only.

/** What a backfill is asked for: the API's shape (POST /api/v1/backfills), which the command also builds. */
export type BackfillRequest = StartBackfill;

interface BackfillResult extends BackfillProgress {
  id: string;
  finished: boolean;
}

export interface PreparedBackfill extends ReadyBackfill {
  run(signal: AbortSignal, onProgress: (p: BackfillProgress) => void): Promise<BackfillResult>;
}

export interface BackfillRuntime {
  store: Store;
  config: Pick<Config, 'checkDefinitionsFile' | 'monitorsFile' | 'judgePrices' | 'judgeUnavailableReason'>;
  log: Logger;
  judge: JudgeClient | null;
  codeRunner: CodeRunner;
}

/** A request naming what does not exist: the message says what to fix. */
export class BackfillRequestError extends PermanentError {}

export async function prepareBackfill(rt: BackfillRuntime, req: BackfillRequest): Promise<PreparedBackfill> {
  const registry = await addStoredChecks(loadRegistry(rt.config.checkDefinitionsFile ?? undefined), rt.store, (doc) => rt.log.warn({ id: doc.id }, 'stored user check does not parse; skipped'), req.project);
  const check = registry.get(req.check);
  if (!check) throw new BackfillRequestError(`unknown check "${req.check}" in project ${req.project}`);
  let monitor: Monitor | undefined;
  if (req.monitor !== undefined) {
    const doc = await rt.store.getDoc(DOC_KINDS.monitor, req.project, req.monitor);
    const stored = doc ? MonitorSchema.safeParse(doc.body) : null;
    monitor = stored?.success ? stored.data : (rt.config.monitorsFile ? loadMonitorsFile(rt.config.monitorsFile) : []).find((m) => m.name === req.monitor);
    if (!monitor) throw new BackfillRequestError(`no monitor "${req.monitor}" in project ${req.project}`);
  }
  const prices = { ...DEFAULT_PRICES, ...rt.config.judgePrices };
  const range = { ...(req.fromMs !== undefined ? { fromMs: req.fromMs } : {}), ...(req.toMs !== undefined ? { toMs: req.toMs } : {}) };
  const scope = { check, project: req.project, ...(monitor ? { monitor } : {}), ...range };
  return {
    id: backfillId(scope),
    check: check.name,
    version: check.version,
    run: async (signal, onProgress) => {
      const result = await runBackfill({
        store: rt.store,
        ...scope,
        judge: rt.judge,
        judgeUnavailableReason: rt.judge ? null : rt.config.judgeUnavailableReason,
        codeRunner: rt.codeRunner,
        costUsd: (model, i, o) => costUsd(prices, model, i, o),
        nowMs: Date.now,
        signal,
        restart: req.restart,
        onProgress,
      });
      return { id: result.id, finished: result.finished, done: result.done, total: result.total, scored: result.scored, skipped: result.skipped };
    },
  };
}
