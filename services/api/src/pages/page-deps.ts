import type { Context } from 'hono';
import type { AlertRepository } from '../../../../shared/engines/alerts/index.ts';
import type { CheckRegistry } from '../../../../shared/engines/checks/index.ts';
import type { Monitor } from '../../../../shared/engines/monitors/index.ts';
import type { PlanSource } from '../scoring-plan-source.ts';
import type { Store } from '../../../../shared/adapters/store/index.ts';
import type { ApiEnv } from '../route.ts';
import { h, type Html } from './html.ts';
import { DEFAULT_REFRESH_SECONDS, REFRESH_SECONDS } from './refresh-script.ts';

/** The checks the pages describe: every definition and version, and which ones the scorer runs. */
export interface CheckCatalog {
  registry: CheckRegistry;
  /** Names the scorer runs on every trace unit of a project without monitors (`TRACECHECK_CHECKS` expanded). */
  live: readonly string[];
  /** The same for session units (`TRACECHECK_SESSION_CHECKS` expanded); default none. */
  sessionLive?: readonly string[];
  /** Monitors of `TRACECHECK_MONITORS_FILE`, for every project; default none. */
  fileMonitors?: readonly Monitor[];
  /** Units waiting for this process's scorer (its consumer lag, last measured); absent or null: not known here. */
  unitsWaiting?: () => number | null;
}

export interface PageDeps {
  store: Store;
  alerts: AlertRepository;
  now: () => number;
  /** Absent: the API was started without a check registry; the checks pages say so. */
  checks: CheckCatalog | null;
  /**
   * The registry with the project's own checks as stored through the API (`POST /api/v1/checks`),
   * read per page: a check is listed as soon as it is saved, before it has a score. Null without `checks`.
   */
  registryFor(project: string): Promise<CheckRegistry | null>;
  /** The scoring plan the scorer follows (GET /api/v1/scoring-plan); absent: pages say nothing of it. */
  plans?: PlanSource;
}

const NAV = [
  ['overview', '/', 'Overview'],
  // The explorer.
  ['units', '/units', 'Units'],
  ['sessions', '/sessions', 'Sessions'],
  ['agents', '/agents', 'Agents'],
  ['checks', '/checks', 'Checks'],
  ['compare', '/compare', 'Compare'],
  ['test-runs', '/test-runs', 'Test runs'],
  ['alerts', '/alerts', 'Alerts'],
  ['review', '/review-queues', 'Review'],
  ['problems', '/problems', 'Problems'],
  ['receive', '/receive', 'Receiving'],
] as const;

export type Section = (typeof NAV)[number][0] | 'unit' | 'login';

// Nothing but our own files: a trace that smuggled markup past the escaping still could not run.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Pages that do not refresh themselves: sign-in, and the review page (its keyboard keeps the focus). */
const STILL: ReadonlySet<Section> = new Set<Section>(['login', 'review']);

function refreshControl(): Html {
  const label = (s: number): string => (s === 0 ? 'off' : s < 60 ? `${s} s` : `${s / 60} min`);
  return h`<label class="refresh" title="Reloads this page's figures, keeping its filters; waits while you use a form or the tab is hidden">auto-refresh <select data-auto-refresh>${REFRESH_SECONDS.map((s) => h`<option value="${s}" ${s === DEFAULT_REFRESH_SECONDS ? h`selected` : null}>${label(s)}</option>`)}</select> <span class="muted" data-refreshed></span></label><script src="/assets/refresh.js" defer></script>`;
}

export function layout(c: Context<ApiEnv>, o: { title: string; section: Section; body: Html; refresh?: boolean }): Html {
  const project = c.get('project');
  const signedIn = c.get('signedIn') === true;
  const refresh = o.refresh ?? !STILL.has(o.section);
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · tracecheck</title><link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css"><script src="/assets/app.js" defer></script></head>
<body><header class="top"><a class="brand" href="/">tracecheck</a>
<nav>${NAV.map(([key, href, label]) => h`<a href="${href}" class="${key === o.section ? 'active' : ''}">${label}</a>`)}</nav>
${o.section === 'login' ? null : h`<div class="who">${refresh ? refreshControl() : null}<span>project <strong>${project}</strong></span>${signedIn ? h`<form method="post" action="/logout"><button type="submit">Sign out</button></form>` : null}</div>`}
</header>
<main>${o.body}</main></body></html>`;
}

export function sendPage(c: Context<ApiEnv>, page: Html, status: 200 | 400 | 401 | 403 | 404 | 429 = 200): Response {
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'same-origin');
  c.header('Cache-Control', 'no-store');
  return c.html(page.value, status);
}

/** A page that explains what went wrong (a bad filter, an unknown unit). */
export function problemPage(c: Context<ApiEnv>, status: 400 | 403 | 404, title: string, detail: string): Response {
  return sendPage(c, layout(c, { title, section: 'overview', body: h`<h1>${title}</h1><p class="sub">${detail}</p><p><a href="/">Back to the overview</a></p>` }), status);
}
