import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsOf, sendRuns, type RunSpec } from '../helpers/agent-runs.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { testClickHouseUrl, testKafkaBrokers, uniqueName, waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

const METRICS_TOKEN = 'e2e-metrics-token-0123456789';

// The dashboard in headless Chromium, over units and scores that went through the real pipeline
// (OTel SDK → collector → assembler → scorer → store), in both modes: sign in with a key, read the
// overview and check that its numbers are the API's, click through to a failing unit's
// transcript, compare two versions and create a regression rule from the page, disable it on the
// alerts page, and see a hostile trace's markup shown as text. Each page is saved as a screenshot
// under .cache/screenshots/.

const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> Book a table`;
// The hostile run's model and tool names carry markup too (shown on its timeline and agent graph).
const HOSTILE_MODEL = '<img src=x onerror="window.__pwned = 3">model';
const HOSTILE_TOOL = '<script>window.__pwned = 4</script>tool';
const CHECKS = ['function_result_present', 'loop_guard', 'task_completed'];

const MODES = [
  { key: 'embedded', name: 'embedded (in-process bus + DuckDB)', env: (): Record<string, string> => ({}) },
  {
    key: 'kafka-clickhouse',
    name: 'Kafka + ClickHouse',
    env: (): Record<string, string> => ({ TRACECHECK_KAFKA_BROKERS: testKafkaBrokers().join(','), TRACECHECK_CLICKHOUSE_URL: testClickHouseUrl(), TRACECHECK_CLICKHOUSE_DATABASE: uniqueName('e2e_dash') }),
  },
];

interface Stats {
  check: string;
  n: number;
  passed: number;
  pass_rate: number | null;
  ci: [number, number] | null;
}
interface Comparison {
  check: string;
  verdict: string;
  a: { rate: number | null; n: number };
  b: { rate: number | null; n: number };
  p_value: number;
}

const pct = (x: number | null): string => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);

for (const mode of MODES) {
  describe(`dashboard in a browser: ${mode.name}`, () => {
    let h: Harness;
    let browser: Browser;
    const env = mode.env();
    let admin = '';
    let read = '';
    let loopingIds = new Set<string>();
    let hostileId = '';
    const shot = (name: string) => browser.screenshot(`${mode.key}-${name}`);

    const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
      const res = await fetch(`${h.pipeline.apiUrl()}${path}`, { ...init, headers: { Authorization: `Bearer ${admin}`, ...init.headers } });
      expect(res.status, path).toBeLessThan(300);
      return (await res.json()) as T;
    };

    beforeAll(async () => {
      h = await startPipeline({ ...env, TRACECHECK_CHECKS: CHECKS.join(','), TRACECHECK_METRICS_TOKEN: METRICS_TOKEN });
      const keyring = h.pipeline.keyring!;
      const ingest = (await keyring.create('shop', 'ingest')).key;
      admin = (await keyring.create('shop', 'admin')).key;
      read = (await keyring.create('shop', 'read')).key;
      // v1 loops on 2 of 40 runs, v2 on 16 of 40; one run carries markup in its question.
      const runs: RunSpec[] = [...runsOf('booking-agent', 'v1', 40, 2), ...runsOf('booking-agent', 'v2', 40, 16), { agent: 'hostile-agent', version: 'x', loops: false, question: HOSTILE, model: HOSTILE_MODEL, tool: HOSTILE_TOOL }];
      const ids = await sendRuns(runs, { collectorUrl: h.pipeline.collectorUrl(), headers: { Authorization: `Bearer ${ingest}` } });
      loopingIds = new Set(ids.filter((_, i) => runs[i].loops));
      hostileId = ids[ids.length - 1];
      await waitFor(
        async () => {
          const s = await api<{ checks: Stats[] }>('/api/v1/checks/summary');
          return CHECKS.every((c) => s.checks.find((x) => x.check === c)?.n === runs.length);
        },
        { timeoutMs: 120_000, intervalMs: 250, description: `${runs.length} scores of each check` },
      );
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await h?.stop();
      if (env.TRACECHECK_CLICKHOUSE_DATABASE) {
        await fetch(`${testClickHouseUrl()}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${env.TRACECHECK_CLICKHOUSE_DATABASE}`)}`, { method: 'POST' }).catch(() => undefined);
      }
    });

    it('signs in with a key, shows the API numbers on the overview, and leads to a failing unit in three clicks', async () => {
      const { page } = browser;
      const base = h.pipeline.apiUrl();
      await page.goto(`${base}/`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('#key', 'tc_read_wrong');
      await page.click('button[type=submit]');
      await expect.poll(() => page.locator('.msg.err').count()).toBe(1);
      await shot('login');
      await page.fill('#key', admin);
      await page.click('button[type=submit]');
      await page.waitForSelector('table[data-overview]');
      expect(new URL(page.url()).pathname).toBe('/');
      // The cookie is HttpOnly: page scripts cannot read the key.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');

      const summary = await api<{ checks: Stats[] }>('/api/v1/checks/summary');
      for (const check of CHECKS) {
        const s = summary.checks.find((x) => x.check === check)!;
        const row = page.locator(`tr[data-check="${check}"]`);
        expect(await row.locator('[data-rate]').innerText()).toContain(pct(s.pass_rate));
        expect(await row.locator('[data-n]').innerText()).toBe(String(s.n));
      }
      const loop = summary.checks.find((x) => x.check === 'loop_guard')!;
      expect([loop.n, loop.passed]).toEqual([81, 63]);
      expect(await page.locator('tr[data-check="loop_guard"] [data-ci]').innerText()).toBe(`${Math.round(100 * loop.ci![0])}% – ${Math.round(100 * loop.ci![1])}%`);
      expect(await page.locator('[data-firing]').getAttribute('data-firing')).toBe('0');
      // Split by agent and version: v2's loop_guard is 24/40 = 60.0%.
      expect(await page.locator('table[data-split] tr', { hasText: 'v2' }).innerText()).toContain('60.0%');
      await shot('overview');

      // Click 1: the failing count of loop_guard → the check page's failing units.
      await page.click('tr[data-check="loop_guard"] a[data-failing]');
      await page.waitForSelector('table[data-failing-units]');
      expect(new URL(page.url()).pathname).toBe('/checks/loop_guard');
      expect(await page.locator('table[data-failing-units] tbody tr').count()).toBe(18);
      // All runs ended within this hour: one point per agent version (booking-agent v1, v2, hostile-agent x).
      expect(await page.locator('figure.chart svg circle.dot').count()).toBe(3);
      expect(await page.locator('figure.chart .legend').first().innerText()).toContain('booking-agent v2');
      expect(await page.locator('[data-definition]').count()).toBe(1);
      await shot('check');

      // Click 2: a failing unit → its transcript and scores.
      const href = await page.locator('a[data-unit-link]').first().getAttribute('href');
      await page.click('a[data-unit-link] >> nth=0');
      await page.waitForSelector('[data-transcript]');
      const unitId = decodeURIComponent(href!.replace('/units/', ''));
      expect(loopingIds.has(unitId)).toBe(true);
      // One turn per message of the API's transcript; the loop's four identical calls among them.
      const unitJson = await api<{ unit: { messages: Array<{ role: string; tool_calls?: unknown[] }> }; scores: Array<{ check: string; explanation: string }> }>(`/api/v1/units/${unitId}`);
      const messages = unitJson.unit.messages;
      expect(await page.locator('[data-turn]').count()).toBe(messages.length);
      expect(await page.locator('[data-turn="tool"]').count()).toBe(messages.filter((m) => m.role === 'tool').length);
      expect(await page.locator('[data-tool-call]').count()).toBe(messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0));
      expect(messages.filter((m) => m.role === 'tool').length).toBeGreaterThanOrEqual(4);
      expect(await page.locator('[data-tool-call] pre').first().innerText()).toBe('{\n  "date": "2026-12-01",\n  "people": 2\n}');
      expect(await page.locator('[data-score="loop_guard"] .badge').innerText()).toBe('fail');
      const explanation = unitJson.scores.find((s) => s.check === 'loop_guard')!.explanation;
      expect(await page.locator('[data-score="loop_guard"] [data-explanation]').innerText()).toBe(explanation);
      expect(await page.locator('[data-score]').count()).toBe(3);
      await shot('unit');
    });

    it('compares v2 with v1 and creates a regression rule from the page; the alerts page disables it', async () => {
      const { page } = browser;
      const base = h.pipeline.apiUrl();
      const query = 'a.agent=booking-agent&a.agent_version=v1&b.agent=booking-agent&b.agent_version=v2';
      await page.goto(`${base}/compare?${query}`);
      await page.waitForSelector('table[data-compare]');
      const cmp = await api<{ comparisons: Comparison[] }>(`/api/v1/compare?${query}`);
      const loop = cmp.comparisons.find((x) => x.check === 'loop_guard')!;
      expect([loop.verdict, loop.a.n, loop.b.n, loop.a.rate, loop.b.rate]).toEqual(['worse', 40, 40, 0.95, 0.6]);
      const row = page.locator('tr[data-check="loop_guard"]');
      expect(await row.getAttribute('data-verdict')).toBe('worse');
      expect(await row.locator('[data-a]').innerText()).toContain('95.0%');
      expect(await row.locator('[data-b]').innerText()).toContain('60.0%');
      expect(await row.locator('[data-diff]').innerText()).toContain('−35.0 pp');
      expect(await row.locator('[data-p]').innerText()).toContain(loop.p_value < 0.0001 ? '< 0.0001' : loop.p_value.toFixed(4));
      // Sorted most worse first.
      expect(await page.locator('table[data-compare] tbody tr').first().getAttribute('data-check')).toBe(cmp.comparisons[0].check);
      await shot('compare');

      // The rule notifies whoever the row's form names (email: no network in a test).
      await row.locator('details.alert-on > summary').click();
      await row.locator('form[data-create-rule] select[name=type]').selectOption('email');
      await row.locator('form[data-create-rule] input[name=target]').fill('oncall@example.com');
      await row.locator('form[data-create-rule] button[type=submit]').click();
      await expect.poll(() => row.locator('[data-result]').innerText()).toContain('created');
      const rules = await api<{ rules: Array<{ id: string; kind: string; check: string; baseline: unknown; candidate: unknown; enabled: boolean; notify: unknown }> }>('/api/v1/alert-rules');
      expect(rules.rules.map((r) => [r.kind, r.check, r.baseline, r.candidate, r.enabled, r.notify])).toEqual([
        ['regression', 'loop_guard', { agent: 'booking-agent', agent_version: 'v1' }, { agent: 'booking-agent', agent_version: 'v2' }, true, [{ type: 'email', to: 'oncall@example.com' }]],
      ]);

      await page.goto(`${base}/alerts`);
      await page.waitForSelector('table[data-rules]');
      expect(await page.locator('[data-rule-row]').count()).toBe(1);
      await page.click('[data-rule-row] button[data-put-rule]');
      await expect.poll(() => page.locator('[data-rule-row] [data-state]').innerText()).toBe('disabled');
      expect((await api<{ rules: Array<{ enabled: boolean }> }>('/api/v1/alert-rules')).rules.map((r) => r.enabled)).toEqual([false]);
      await shot('alerts');
    });

    it('lists the checks with kind, method and where the scoring plan runs them', async () => {
      const { page } = browser;
      await page.goto(`${h.pipeline.apiUrl()}/checks`);
      await page.waitForSelector('table[data-checks]');
      const cells = async (name: string) => (await page.locator(`tr[data-check-row="${name}"] td`).allInnerTexts()).slice(1, 5);
      expect(await cells('loop_guard')).toEqual(['builtin', 'deterministic', 'pass_fail', 'every trace unit']);
      expect(await cells('task_completed')).toEqual(['model', 'model', 'pass_fail', 'every trace unit']);
      expect((await cells('toxicity'))[3]).toBe('no');
      await shot('checks');
    });

    it("shows a hostile trace's markup as text and runs none of it", async () => {
      const { page } = browser;
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(`${h.pipeline.apiUrl()}/units/${hostileId}`);
      await page.waitForSelector('[data-transcript]');
      const texts = await page.locator('[data-turn="user"] .text').allInnerTexts();
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.every((t) => t === HOSTILE)).toBe(true);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('main img').count()).toBe(0);
      expect(await page.locator('main script').count()).toBe(0);
      expect(dialogs).toEqual([]);
      await shot('hostile-unit');
    });

    it("shows a run's timeline with the API's numbers, and hostile model and tool names as text", async () => {
      const { page } = browser;
      const { unit } = await api<{ unit: { steps: Array<{ type: string; model?: string; name?: string; latency_ms?: number; input_tokens?: number; output_tokens?: number }> } }>(`/api/v1/units/${hostileId}`);
      const steps = unit.steps.filter((s) => s.type !== 'handoff');
      // In start order (the SDK's clock decides whether the tool's span or the call's starts first).
      const names = steps.map((s) => s.model ?? s.name);
      expect([...names].sort()).toEqual([HOSTILE_MODEL, HOSTILE_MODEL, HOSTILE_TOOL].sort());
      await page.goto(`${h.pipeline.apiUrl()}/units/${hostileId}`);
      await page.waitForSelector('[data-timeline]');
      expect(await page.locator('[data-steps] [data-step-name]').allInnerTexts()).toEqual(names);
      expect(await page.locator('[data-steps] [data-latency]').allInnerTexts()).toEqual(steps.map((s) => `${s.latency_ms!.toFixed(1)} ms`));
      expect(await page.locator('[data-steps] [data-tokens]').allInnerTexts()).toEqual(steps.map((s) => (s.type === 'llm' ? `${s.input_tokens} / ${s.output_tokens}` : '')));
      expect(await page.locator('[data-agent-graph] text').allTextContents()).toContain(`▸ ${HOSTILE_TOOL.slice(0, 24)} ×1`);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('main script').count()).toBe(0);
      await shot('unit-timeline');
    });

    it("shows an agent's page with the numbers of the metrics API", async () => {
      const { page } = browser;
      const summary = await api<{ groups: Array<{ group: string; units: number; error_rate: number | null }> }>('/api/v1/metrics/summary?group_by=agent_version&agent=booking-agent');
      await page.goto(`${h.pipeline.apiUrl()}/agents/booking-agent`);
      await page.waitForSelector('[data-metrics="agent_version"]');
      for (const g of summary.groups) {
        const row = page.locator(`[data-metrics="agent_version"] tr[data-group="${g.group}"]`);
        expect(await row.locator('[data-units]').innerText()).toBe(String(g.units));
        expect(await row.locator('[data-error-rate]').innerText()).toBe(pct(g.error_rate));
      }
      expect(summary.groups.map((g) => [g.group, g.units]).sort()).toEqual([['v1', 40], ['v2', 40]]);
      await shot('agent-page');
    });

    it("serves the pipeline's Prometheus metrics on the API (with the operator's token once keys exist) and on the OTLP/HTTP receiver", async () => {
      expect((await fetch(`${h.pipeline.apiUrl()}/metrics`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(401);
      const text = await (await fetch(`${h.pipeline.apiUrl()}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      const value = (line: string): number => Number(new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('tracecheck_units_assembled_total')).toBe(81);
      for (const check of CHECKS) expect(value(`tracecheck_scores_written_total{check="${check}",status="ok"}`)).toBe(81);
      expect(value('tracecheck_spans_accepted_total')).toBe(value('tracecheck_spans_received_total'));
      expect(value('tracecheck_spans_accepted_total')).toBeGreaterThanOrEqual(81 * 4);
      expect(value('tracecheck_judge_calls_total{outcome="ok"}')).toBe(81);
      expect(value('tracecheck_judge_calls_in_flight')).toBe(0);
      // The collector's /metrics follows the API's rule (issue 23): the operator's token, no project key.
      expect((await fetch(`${h.pipeline.collectorUrl()}/metrics`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(401);
      const collector = await fetch(`${h.pipeline.collectorUrl()}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(collector.status).toBe(200);
      expect(collector.headers.get('content-type')).toContain('text/plain');
      expect(await collector.text()).toContain('tracecheck_spans_received_total');
    });

    it('refuses a key of another project its units, and a read key cannot create rules from the page', async () => {
      const { page, context } = browser;
      const base = h.pipeline.apiUrl();
      await context.clearCookies();
      await page.goto(`${base}/login`);
      await page.fill('#key', read);
      await page.click('button[type=submit]');
      await page.waitForSelector('table[data-overview]');
      const res = await page.evaluate(async () => {
        const r = await fetch('/api/v1/alert-rules', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        return r.status;
      });
      expect(res).toBe(403);
      const other = (await h.pipeline.keyring!.create('bank', 'read')).key;
      await context.clearCookies();
      await page.goto(`${base}/login?next=${encodeURIComponent(`/units/${hostileId}`)}`);
      await page.fill('#key', other);
      await page.click('button[type=submit]');
      await page.waitForSelector('h1');
      expect(await page.locator('h1').innerText()).toBe('No such unit');
    });
  });
}
