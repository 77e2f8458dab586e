import type { Bus, ConsumerLag } from '../../../../shared/adapters/bus/index.ts';
import type { Store } from '../../../../shared/adapters/store/index.ts';
import { parseRecord, ScoreSchema, type Score, type Unit } from '../../../../shared/contracts/schemas/index.ts';
import { loadBook, putProblemEvent, saveBook, type ProblemBook, type ProblemBookOptions, type ProblemEvent } from '../../../../shared/engines/problems/index.ts';
import { createRecordStage } from '../../../../shared/kit/stage/index.ts';
import { RetriableError } from '../../../../shared/runtime/errors/index.ts';
import type { Component } from '../../../../shared/runtime/lifecycle/index.ts';
import type { Logger } from '../../../../shared/runtime/logging/index.ts';

export interface ProblemMinerConfig {
  scoresTopic: string;
  groupId: string;
  /** How often units whose scores have settled are mined and the books written; default 1,000. */
  tickMs?: number;
  /** A unit's scores are taken as complete this long after the last of them arrived (the scorer publishes them together); default 500. */
  settleMs?: number;
  book?: ProblemBookOptions;
}

export interface ProblemMinerDeps {
  bus: Bus;
  store: Store;
  log: Logger;
  now?: () => number;
  onLag?: (lag: ConsumerLag) => void;
  /** Each state change, after it is stored. */
  onEvent?: (project: string, event: ProblemEvent) => void;
}

export interface ProblemMiner extends Component {
  /** Mines every unit waiting (settled or not) now: tests, and shutdown. */
  flush(): Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
}

interface PendingUnit {
  scores: Score[];
  lastAtMs: number;
  waiters: Waiter[];
}

/**
 * The problems stage: reads the scores the scorer publishes, gathers each unit's scores, and once
 * they have settled feeds the unit (read from the store for its steps, tool calls and errors when
 * it failed) to its project's problem book, then writes the book and its state changes to the
 * store. A score's record is done only once its unit's book is written, so a crash re-reads every
 * unit not yet written; the book counts a re-read unit once. One consumer per deployment: a book
 * lives in one process (the alerter's), as the alert rules' state does.
 */
export function createProblemMiner(config: ProblemMinerConfig, deps: ProblemMinerDeps): ProblemMiner {
  const log = deps.log.child({ component: 'problems' });
  const tickMs = config.tickMs ?? 1_000;
  const settleMs = config.settleMs ?? 500;
  const now = deps.now ?? Date.now;
  const pending = new Map<string, Map<string, PendingUnit>>();
  const books = new Map<string, ProblemBook>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let running: Promise<void> = Promise.resolve();

  function add(score: Score): Promise<void> {
    const project = score.project ?? 'default';
    const units = pending.get(project) ?? new Map<string, PendingUnit>();
    pending.set(project, units);
    const unit = units.get(score.unit_id) ?? { scores: [], lastAtMs: 0, waiters: [] };
    units.set(score.unit_id, unit);
    unit.scores.push(score);
    unit.lastAtMs = now();
    return new Promise((resolve, reject) => unit.waiters.push({ resolve, reject }));
  }

  async function mineProject(project: string, ready: Array<[string, PendingUnit]>, at: number): Promise<void> {
    const book = books.get(project) ?? (await loadBook(deps.store, project, config.book ?? {}, (doc, issues) => log.warn({ kind: doc.kind, id: doc.id, issues }, 'a stored problem document does not parse; left out')));
    books.set(project, book);
    // Every unit is read: one whose checks all passed still failed when its run recorded an error
    // (a hand-off that never came back, an agent that gave up), which the scores do not carry.
    const units: Map<string, Unit> = await deps.store.getUnits(ready.map(([id]) => id), project);
    // Oldest first, then by id: a replay of the same units feeds the book in the same order.
    const ordered = [...ready].sort(([a, x], [b, y]) => x.scores[0].unit_end_time_ms - y.scores[0].unit_end_time_ms || (a < b ? -1 : 1));
    const events: ProblemEvent[] = [];
    for (const [unitId, u] of ordered) {
      const first = u.scores[0];
      const ref = { unit_id: unitId, agent_name: first.agent_name, agent_version: first.agent_version, end_time_ms: first.unit_end_time_ms };
      events.push(...book.observe(ref, u.scores, units.get(unitId) ?? null).events);
    }
    events.push(...book.tick(at));
    await saveBook(deps.store, project, book, at);
    for (const e of events) {
      await putProblemEvent(deps.store, project, e, at);
      deps.onEvent?.(project, e);
    }
  }

  async function mine(force: boolean): Promise<void> {
    const at = now();
    for (const [project, units] of pending) {
      const ready = [...units].filter(([, u]) => force || at - u.lastAtMs >= settleMs);
      if (ready.length === 0) continue;
      for (const [id] of ready) units.delete(id);
      try {
        await mineProject(project, ready, at);
        for (const [, u] of ready) for (const w of u.waiters) w.resolve();
      } catch (err) {
        // The book may hold units the store does not: read it again, and let the bus retry the records.
        books.delete(project);
        log.warn({ err, project, units: ready.length }, 'mining problems failed; the units are read again');
        const failure = new RetriableError('the problems could not be stored', { cause: err });
        for (const [, u] of ready) for (const w of u.waiters) w.reject(failure);
      }
      if (units.size === 0) pending.delete(project);
    }
  }

  function flush(force = true): Promise<void> {
    running = running.then(() => mine(force));
    return running;
  }

  const stage = createRecordStage<Score>(
    // Units wait for their scores to settle: many records are in flight at once.
    { name: 'problems', in: config.scoresTopic, out: [], groupId: config.groupId, maxInFlight: 20_000 },
    {
      bus: deps.bus,
      log: deps.log,
      parse: (value, parsed) => parseRecord(ScoreSchema, value, 'a score v1', parsed),
      skip: (score) => score.unit_kind === 'eval',
      // One key per score: each waits for its unit's mining without holding up the others.
      keyOf: (score) => `${score.project ?? 'default'}\u0000${score.unit_id}\u0000${score.check}\u0000${score.check_version}`,
      run: add,
      started: () => {
        timer = setInterval(() => void flush(false), tickMs);
        timer.unref?.();
      },
      stopping: async () => {
        if (timer) clearInterval(timer);
        await flush(true);
      },
      ...(deps.onLag ? { onLag: deps.onLag } : {}),
    },
  );
  return { ...stage, flush: () => flush(true) };
}
