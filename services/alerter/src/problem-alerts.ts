import { createHash } from 'node:crypto';
import type { QueryStore } from '../../../shared/adapters/store/contract.ts';
import type { AlertPayload, AlertRepository, ProblemRule } from '../../../shared/engines/alerts/index.ts';
import { getProblem, listProblemEvents, type Problem, type StoredProblemEvent } from '../../../shared/engines/problems/index.ts';
import type { Logger } from '../../../shared/runtime/logging/index.ts';
import { problemPayload, ruleTakes } from './problem-rules.ts';

export interface ProblemAlertDeps {
  store: QueryStore;
  repo: AlertRepository;
  log: Logger;
  /** Writes the history event under `id`, then queues its deliveries (the alerter's one path for every notification). */
  send(rule: ProblemRule, payload: AlertPayload, opts: { id: string; dedupKey: string; nowMs: number; createdAtMs?: number }): Promise<void>;
}

export interface ProblemAlerts {
  /** Notifies every enabled problem rule of the state changes stored since it was made, each once. */
  deliver(rules: readonly ProblemRule[], nowMs: number, report: { problemNotifications: Array<{ ruleId: string; kind: string; problemId: string }> }): Promise<void>;
}

/**
 * The history event of one rule and one state change: time-sortable like every event id (the
 * change's time), and the same in every process, so the history itself says whether it was sent.
 */
function problemAlertId(ruleId: string, event: StoredProblemEvent): string {
  const hash = createHash('sha256').update(`${ruleId}\u0000${event.id}`).digest('hex').slice(0, 16);
  return `${String(Math.max(0, Math.floor(event.event.at_ms))).padStart(13, '0')}-${hash}`;
}

/**
 * Problem rules deliver the problem miner's state changes (problem_event documents): once per rule
 * and change, across restarts. Before a change is delivered its history event is written under an
 * id derived from the rule and the change; a change whose event exists is not sent again. One left
 * `pending` by a process that died before recording the outcome is sent again (at least once: a
 * receiver may see it twice only after a crash mid-delivery; the payload's problem id and fired_at
 * name the change).
 */
export function createProblemAlerts(deps: ProblemAlertDeps): ProblemAlerts {
  const log = deps.log.child({ component: 'alerter.problems' });
  /** `rule\0change` handled by this process (in the history): no store read for them again. */
  const handled = new Set<string>();

  async function deliverOne(rule: ProblemRule, e: StoredProblemEvent, nowMs: number, problems: Map<string, Problem | null>): Promise<boolean> {
    const key = `${rule.id}\u0000${e.id}`;
    if (handled.has(key)) return false;
    const id = problemAlertId(rule.id, e);
    const existing = await deps.repo.getEvent(rule.project, id);
    if (existing && existing.delivery_status !== 'pending') {
      handled.add(key);
      return false;
    }
    if (!problems.has(e.event.problem_id)) problems.set(e.event.problem_id, await getProblem(deps.store, rule.project, e.event.problem_id));
    const problem = problems.get(e.event.problem_id) ?? null;
    if (!ruleTakes(rule, e.event, problem)) {
      handled.add(key);
      return false;
    }
    const payload = problemPayload(rule, e.event, problem);
    await deps.send(rule, payload, { id, dedupKey: `tracecheck:${rule.project}:${rule.id}:${e.id}`, nowMs, ...(existing ? { createdAtMs: existing.created_at_ms } : {}) });
    handled.add(key);
    log.info({ ruleId: rule.id, kind: e.event.kind, problem: e.event.problem_id, resent: existing !== null }, 'problem notification');
    return true;
  }

  return {
    async deliver(rules, nowMs, report) {
      const byProject = new Map<string, ProblemRule[]>();
      for (const r of rules) byProject.set(r.project, [...(byProject.get(r.project) ?? []), r]);
      for (const [project, mine] of byProject) {
        const since = Math.min(...mine.map((r) => r.created_at_ms));
        let events: StoredProblemEvent[];
        try {
          events = await listProblemEvents(deps.store, project, since, (doc, issues) => log.warn({ id: doc.id, issues }, 'stored problem event does not parse; skipped'));
        } catch (err) {
          log.error({ err, project }, 'reading problem events failed; delivered at the next evaluation');
          continue;
        }
        // Oldest first: a problem's new before its growing.
        events.sort((a, b) => a.event.at_ms - b.event.at_ms || (a.id < b.id ? -1 : 1));
        const problems = new Map<string, Problem | null>();
        for (const rule of mine) {
          for (const e of events) {
            if (e.updated_at_ms < rule.created_at_ms || e.event.kind === 'problem_resolved') continue;
            try {
              if (await deliverOne(rule, e, nowMs, problems)) report.problemNotifications.push({ ruleId: rule.id, kind: e.event.kind, problemId: e.event.problem_id });
            } catch (err) {
              // Not marked handled: tried again at the next evaluation.
              log.error({ err, ruleId: rule.id, change: e.id }, 'problem notification failed; tried again at the next evaluation');
            }
          }
        }
      }
    },
  };
}
