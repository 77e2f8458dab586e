import type { Context } from 'hono';
import type { ApiEnv } from '../route.ts';
import { recentReceipts, RECENT_UNITS, UNITS_PER_SERVICE } from '../receive-routes.ts';
import type { ServiceReceipt } from '../receive-summary.ts';
import { diagnosticItem } from './diagnostics-card.ts';
import { count, unitHref, utc } from './format.ts';
import { h, type Html } from './html.ts';
import { layout, sendPage, type PageDeps } from './page-deps.ts';

// "What we receive": per service, the latest trace units, the instrumentation scopes they came
// from, whether content arrived and what is missing. An empty project gets the set-up steps
// instead. Every string here came from a trace, so it goes through `h` and shows as text.

const CONTENT_BADGE: Record<ServiceReceipt['content'], Html> = {
  all: h`<span class="badge pass">content: yes</span>`,
  some: h`<span class="badge error">content: some units</span>`,
  none: h`<span class="badge fail">content: none</span>`,
  no_model_calls: h`<span class="badge neutral">no model calls</span>`,
};

function setUpSteps(origin: string): Html {
  const otlp = origin.replace(/:\d+$/, ':4318');
  return h`<div class="card" data-setup><strong>Nothing has arrived in this project yet.</strong>
<ol>
<li>Instrument the agent and its model client with OpenTelemetry (a recipe per library is in <code>docs/sending-traces.md</code> in the tracecheck repository, runnable folders under <code>examples/</code>).</li>
<li>Point its exporter here: <code>OTEL_EXPORTER_OTLP_ENDPOINT=${otlp}</code> (OTLP/HTTP; gRPC on port 4317). With API keys, add <code>OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer &lt;ingest key&gt;"</code>.</li>
<li>Turn message content on: it is off by default in the OpenTelemetry GenAI instrumentations (<code>OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY</code> in current Python versions, <code>true</code> in Node.js, which also needs a logs exporter to <code>/v1/logs</code>).</li>
<li>Run the agent once, then come back: this page shows what arrived, from which library, and what is missing.</li>
</ol></div>`;
}

function serviceCard(s: ServiceReceipt): Html {
  return h`<div class="card" data-service="${s.service ?? ''}">
<div class="head"><strong>${s.service ?? '(no service.name)'}</strong> ${CONTENT_BADGE[s.content]} <span class="muted">last seen ${utc(s.last_seen_ms)}</span></div>
${s.warnings.length > 0 ? h`<div class="firing-list" data-warnings><ul>${s.warnings.map((w) => diagnosticItem(w, h`<div class="muted">${count(w.units)} of the ${count(s.units.length)} units below; latest: <a href="${unitHref(w.example_unit)}"><code>${w.example_unit}</code></a></div>`))}</ul></div>` : h`<p class="muted" data-warnings="0">Nothing missing in its latest units.</p>`}
<div class="table-wrap"><table data-scopes><thead><tr><th>instrumentation scope</th><th>convention family</th><th class="num">spans</th><th class="num">model calls with content</th><th class="num">log records</th><th>span names</th></tr></thead><tbody>
${s.scopes.map((sc) => h`<tr data-scope="${sc.name}"><td><code>${sc.name}</code> ${sc.version ?? ''}</td><td>${sc.family ?? h`<span class="muted">none</span>`}</td><td class="num">${count(sc.spans)}</td><td class="num" data-content>${sc.model_calls === 0 ? '–' : `${count(sc.model_calls_with_content)} of ${count(sc.model_calls)}`}</td><td class="num">${count(sc.logs)}</td><td>${sc.span_names.join(', ')}</td></tr>`)}
</tbody></table></div>
<div class="table-wrap"><table data-units><thead><tr><th>ended</th><th>root span</th><th class="num">spans</th><th>content</th><th>unit</th></tr></thead><tbody>
${s.units.map((u) => h`<tr><td>${utc(u.end_time_ms)}</td><td>${u.root_name ?? h`<span class="muted">–</span>`}</td><td class="num">${count(u.span_count)}</td><td>${u.content === null ? '–' : u.content ? 'yes' : h`<span class="badge fail">missing</span>`}</td><td><a href="${unitHref(u.unit_id)}"><code>${u.unit_id}</code></a></td></tr>`)}
</tbody></table></div></div>`;
}

export async function receivePage(c: Context<ApiEnv>, deps: PageDeps): Promise<Response> {
  const { services } = await recentReceipts(deps.store, c.get('project'));
  const body = h`<h1>What we receive</h1>
<p class="sub">Per service (<code>service.name</code>), its latest ${UNITS_PER_SERVICE} trace units of the latest ${RECENT_UNITS}: the instrumentation scopes they came from, the convention family read, whether message content arrived, and what is missing with the setting that fixes it.</p>
${services.length === 0 ? setUpSteps(new URL(c.req.url).origin) : services.map(serviceCard)}
<p class="muted">As JSON: <a href="/api/v1/ingest/recent">/api/v1/ingest/recent</a></p>`;
  return sendPage(c, layout(c, { title: 'What we receive', section: 'receive', body }));
}
