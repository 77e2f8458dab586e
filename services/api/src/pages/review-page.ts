import type { Context } from 'hono';
import { ReviewerSchema, createReviewRepository, nextInQueue, queueItems, type ReviewQueue } from '../../../../shared/engines/review/index.ts';
import type { ApiEnv } from '../route.ts';
import { count, unitHref, withQuery } from './format.ts';
import { h } from './html.ts';
import { layout, problemPage, sendPage, type PageDeps } from './page-deps.ts';
import { scoreCard, transcript } from './unit-page.ts';

// Review queues and the review page: a unit's transcript beside the queue check's verdict and
// explanation, answered from the keyboard (review.js): 1 agree, 0 disagree, s skip, j/n next,
// k/p previous. Each answer goes to POST /api/v1/reviews as same-origin JSON.

function reviewerOf(c: Context<ApiEnv>): string | null {
  const parsed = ReviewerSchema.safeParse(c.req.query('reviewer'));
  return parsed.success ? parsed.data : null;
}

function filterText(q: ReviewQueue): string {
  return Object.entries(q.filter)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}

export async function reviewQueuesPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const project = c.get('project');
  const queues = await createReviewRepository(deps.store).listQueues(project);
  const sizes = await Promise.all(queues.map(async (q) => (await queueItems(deps.store, q)).length));
  const body = h`<h1>Review queues</h1>
<p class="sub">People confirm or correct check verdicts. Create a queue with <code>POST /api/v1/review-queues</code>; your name is kept with each review.</p>
${queues.length === 0 ? h`<p class="muted">No queues yet.</p>` : h`<div class="table-wrap"><table data-queues><thead><tr><th>queue</th><th>filter</th><th class="num">units</th><th>review as</th></tr></thead><tbody>${queues.map(
  (q, i) => h`<tr><td>${q.name}</td><td class="muted">${filterText(q)}${q.sample_rate < 1 ? `, sample ${q.sample_rate}` : ''}${q.unit_ids.length > 0 ? ` + ${q.unit_ids.length} added` : ''}</td><td class="num">${count(sizes[i])}</td><td><form method="get" action="/review/${encodeURIComponent(q.id)}" class="filters"><input name="reviewer" required maxlength="100" placeholder="your name" data-reviewer-name><button type="submit" data-start-review>Start</button></form></td></tr>`,
)}</tbody></table></div>`}`;
  return sendPage(c, layout(c, { title: 'Review queues', section: 'review', body }));
}

export async function reviewPage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const project = c.get('project');
  const id = c.req.param('id') ?? '';
  const repo = createReviewRepository(deps.store);
  const queue = await repo.getQueue(project, id);
  if (!queue) return problemPage(c, 404, 'No such queue', `No review queue with id "${id}" in project ${project}.`);
  const reviewer = reviewerOf(c);
  if (!reviewer) return problemPage(c, 400, 'Who reviews?', 'Start from the review queues page with your name.');
  const check = queue.filter.check;
  const [items, mine] = await Promise.all([queueItems(deps.store, queue), repo.listReviews({ project, check, reviewer })]);
  const reviewed = new Set(mine.map((r) => r.unit_id));
  const wanted = c.req.query('unit');
  const index = wanted !== undefined ? items.findIndex((s) => s.unit_id === wanted) : -1;
  const at = index >= 0 ? { unit_id: items[index].unit_id, position: index + 1, total: items.length, reviewed: reviewed.size } : nextInQueue(items, reviewed);
  const base = h`<p class="muted"><a href="/review-queues">Review queues</a> › ${queue.name}</p>`;
  if (at.unit_id === null) {
    const body = h`${base}<h1 data-queue-done>Done: ${count(at.reviewed)} of ${count(at.total)} reviewed</h1><p><a href="${withQuery(`/checks/${encodeURIComponent(check)}`, {})}#agreement">See ${check}'s agreement</a></p>`;
    return sendPage(c, layout(c, { title: `Review ${queue.name}`, section: 'review', body }));
  }
  const shown = await deps.store.getUnitRevision(at.unit_id, project);
  const score = items[(at.position ?? 1) - 1];
  const others = shown ? (await deps.store.queryScores({ unitId: at.unit_id, project, unitRevision: shown.revision, limit: 1_000 })).filter((s) => s.check !== check) : [];
  const mineHere = mine.find((r) => r.unit_id === at.unit_id);
  const body = h`${base}
<div data-review tabindex="-1" data-queue="${queue.id}" data-unit="${at.unit_id}" data-check="${check}" data-reviewer="${reviewer}">
<h1>${check}: <span data-position>${at.position}/${at.total}</span> <span class="muted" data-reviewed>${count(reviewed.size)} reviewed by ${reviewer}</span></h1>
<p class="sub">Keys: <kbd>1</kbd> correct (agree) · <kbd>0</kbd> wrong (disagree) · <kbd>s</kbd> skip · <kbd>j</kbd>/<kbd>n</kbd> next · <kbd>k</kbd>/<kbd>p</kbd> previous · <kbd>t</kbd> write a note, <kbd>Esc</kbd> back.</p>
<div class="grid2"><div><h2>Conversation <a class="muted" href="${unitHref(at.unit_id)}">${at.unit_id}</a></h2><div data-transcript>${shown ? transcript(shown.unit) : h`<p class="muted">The unit is no longer stored.</p>`}</div></div>
<aside class="sticky"><div class="card" data-verdict>${scoreCard(score)}
${mineHere ? h`<p class="msg ${mineHere.agrees ? 'ok' : 'err'}" data-my-review>You said: ${mineHere.agrees ? 'correct' : 'wrong'}${mineHere.note ? ` — ${mineHere.note}` : ''}</p>` : null}
<div class="filters"><label>note<input data-note maxlength="4000" value="${mineHere?.note ?? ''}"></label><label>labels (comma-separated)<input data-labels maxlength="500" value="${mineHere?.labels.join(', ') ?? ''}"></label>${score.passed === null ? h`<label>correct value<input data-value type="number" step="any"></label>` : null}</div>
<div class="filters"><button type="button" data-answer="1">1 · correct</button><button type="button" class="secondary" data-answer="0">0 · wrong</button><button type="button" class="secondary" data-answer="s">s · skip</button></div>
<div class="msg err" data-result hidden></div></div>
${others.length > 0 ? h`<div class="card"><strong>Other checks</strong>${others.map(scoreCard)}</div>` : null}</aside></div></div>
<script src="/assets/review.js" defer></script>`;
  return sendPage(c, layout(c, { title: `Review ${queue.name}`, section: 'review', body }));
}
