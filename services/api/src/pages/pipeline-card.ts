import type { PipelineAnswer } from '../pipeline-status.ts';
import { count } from './format.ts';
import { h, type Html } from './html.ts';

// The overview's backlog card: what each stage has waiting, the judge's queue against its rate
// limit, and when the units waiting will be scored at the recent rate (GET /api/v1/pipeline).

/** "45 s", "2 min 30 s", "3 h 5 min". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  const hrs = Math.floor(m / 60);
  return m % 60 === 0 ? `${hrs} h` : `${hrs} h ${m % 60} min`;
}

function eta(p: PipelineAnswer): Html {
  const waiting = p.stages.find((s) => s.stage === 'score')?.waiting ?? null;
  if (waiting === null) return h`<span class="muted">no estimate: the scorer's backlog is not reported</span>`;
  if (p.eta_ms === 0) return h`<span class="badge ok">caught up</span>`;
  if (p.eta_ms === null) return h`<span class="badge pending">no estimate</span> <span class="muted">no units scored in the last 5 min</span>`;
  return h`<span class="badge pending">through in about ${duration(p.eta_ms)}</span> <span class="muted">${count(waiting)} units at ${p.scored_per_minute ?? 0} a minute</span>`;
}

export function pipelineCard(p: PipelineAnswer): Html {
  // Open sessions are held, not late: only units waiting to be scored and judge calls mark a backlog.
  const backlog = (p.stages.find((s) => s.stage === 'score')?.waiting ?? 0) > 0 || (p.judge?.waiting ?? 0) > 0;
  const stages = p.stages.filter((s) => s.waiting !== null || s.stage !== 'route');
  return h`<div class="card pipeline ${backlog ? 'behind' : ''}" data-pipeline><strong>Pipeline</strong> ${eta(p)}
<div class="grid4">${stages.map((s) => h`<div class="tile" data-stage="${s.stage}"><div class="muted">${s.label}</div><div class="big" data-waiting>${s.waiting === null ? '–' : count(s.waiting)}</div>${s.lag_ms !== null && s.lag_ms >= 1000 ? h`<div class="muted" data-lag>oldest waiting ${duration(s.lag_ms)}</div>` : null}${s.error ? h`<div class="muted" title="${s.error}">last known (measuring failed)</div>` : null}</div>`)}
${p.open_sessions ? h`<div class="tile" data-open-sessions><div class="muted">conversations open</div><div class="big" data-waiting>${count(p.open_sessions.count)}</div><div class="muted">each a session unit ${duration(p.open_sessions.idle_ms)} after its last trace</div></div>` : null}
<div class="tile" data-stage="judge"><div class="muted">judge calls waiting</div>${p.judge ? h`<div class="big" data-waiting>${count(p.judge.waiting)}</div><div class="muted" data-judge-limit>${count(p.judge.in_flight)} in flight of ${count(p.judge.concurrency)}; limit ${count(p.judge.rate_per_minute)} a minute</div>` : h`<div class="big">–</div><div class="muted">no judge reported</div>`}</div></div>
${p.problems.length > 0 ? h`<div class="muted" data-pipeline-problems>${p.problems.join(' ')}</div>` : null}
<div class="muted"><a href="/api/v1/pipeline">As JSON</a></div></div>`;
}
