import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbStore, type Store } from '../../shared/adapters/store/index.ts';
import { PIPELINE_STATUS_KIND, PIPELINE_STATUS_PROJECT, type PipelineStatus } from '../../shared/kit/metrics/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createApiServer } from '../../services/api/src/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { makeScore, makeUnit } from '../integration/store/store-fixtures.ts';

// The dashboard's layout in headless Chromium at a phone's width (375 px) and a laptop's (1280 px):
// no page scrolls sideways, the compare page's "Alert on this" is on screen at 1280 px and makes a
// rule that notifies the address given, and auto-refresh swaps in new figures keeping the filters
// (the page's clock is Playwright's, so no test waits 30 s). The layout does not depend on the
// store, so DuckDB alone.

const CHECKS = ['loop_guard', 'task_completed', 'function_result_present', 'answer_relevance_to_question'];
const status = (waiting: number): PipelineStatus => ({
  instance: 'test:1', services: ['scorer'], written_at_ms: Date.now(), interval_ms: 3_600_000,
  stages: [{ stage: 'assemble', topic: 'spans', group: null, waiting: 0, error: null }, { stage: 'score', topic: 'units', group: null, waiting, error: null }, { stage: 'sessions', topic: 'sessions', group: null, waiting: 0, error: null }],
  judge: { rate_per_minute: 600, concurrency: 8, in_flight: waiting > 0 ? 8 : 0, waiting: 0 }, scored_per_minute: 600,
});

describe('dashboard layout and refresh in a browser', () => {
  let store: Store;
  let api: ReturnType<typeof createApiServer>;
  let browser: Browser;
  const putStatus = (waiting: number) => store.putDoc({ kind: PIPELINE_STATUS_KIND, project: PIPELINE_STATUS_PROJECT, id: 'test:1', body: status(waiting), updated_at_ms: Date.now() });

  beforeAll(async () => {
    const log = createSilentLogger();
    store = createDuckDbStore({ path: ':memory:', log });
    await store.start();
    const end = Date.now() - 3_600_000;
    const items = Array.from({ length: 40 }, (_, i) => {
      const version = i < 20 ? 'v1' : 'v2';
      const id = `unit-${i}-${'x'.repeat(40)}`;
      return {
        unit: makeUnit({
          unit_id: id, agent_name: 'booking-agent', agent_version: version, end_time_ms: end, start_time_ms: end - 2_000, model: 'mystery-model',
          steps: [{ type: 'llm', span_id: 's', agent: 'booking-agent', start_ms: 0, model: 'mystery-model', provider: null, input_tokens: 10, output_tokens: 5, latency_ms: 900, status: 'ok', cost_usd: null }],
          duration_ms: 2_000, llm_calls: 1, tool_call_count: 0, tool_errors: 0, cost_usd: 0, unpriced_llm_calls: 1, price_table: 'p1',
        }),
        scores: CHECKS.map((check, c) => {
          const passed = version === 'v1' || (i + c) % 3 !== 0;
          return makeScore({ unit_id: id, agent_name: 'booking-agent', agent_version: version, check, check_version: 'c1', passed, value: passed ? 1 : 0, method: 'deterministic', explanation: passed ? 'fine' : 'failed', unit_end_time_ms: end, created_at_ms: end + i });
        }),
      };
    });
    await store.writeScoredUnits(items);
    await putStatus(1_500);
    api = createApiServer({ host: '127.0.0.1', port: 0, store, log });
    await api.start();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.shutdown();
    await store?.shutdown();
  });

  const COMPARE = '/compare?a.agent=booking-agent&a.agent_version=v1&b.agent=booking-agent&b.agent_version=v2&window=24h';
  const PAGES = ['/', '/?window=7d&agent=booking-agent', '/checks', '/checks/loop_guard?window=7d&bucket=1m', '/agents', '/agents/booking-agent', COMPARE, '/alerts', '/review-queues', `/units/unit-0-${'x'.repeat(40)}`];

  for (const width of [375, 1280]) {
    it(`scrolls no page sideways at ${width} px`, async () => {
      const { page } = browser;
      await page.setViewportSize({ width, height: 800 });
      const overflow: Array<[string, number]> = [];
      for (const path of PAGES) {
        await page.goto(`${api.url()}${path}`);
        await page.waitForSelector('main');
        const scrollWidth = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
        if (scrollWidth > width) overflow.push([path, scrollWidth]);
      }
      await page.goto(`${api.url()}/`);
      await browser.screenshot(`layout-overview-${width}`);
      await page.goto(`${api.url()}${COMPARE}`);
      await browser.screenshot(`layout-compare-${width}`);
      expect(overflow).toEqual([]);
    });
  }

  it('keeps "Alert on this" on screen at 1280 px and creates a rule that notifies the address given', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${api.url()}${COMPARE}`);
    const row = page.locator('tr[data-check="loop_guard"]');
    const control = row.locator('details.alert-on > summary');
    const box = (await control.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
    await control.click();
    const form = row.locator('form[data-create-rule]');
    // Without a target the browser refuses the form, so no rule is made that tells nobody.
    await form.locator('button[type=submit]').click();
    expect(await form.evaluate((f) => (f as unknown as { checkValidity(): boolean }).checkValidity())).toBe(false);
    await form.locator('select[name=type]').selectOption('email');
    await form.locator('input[name=target]').fill('oncall@example.com');
    const formBox = (await form.boundingBox())!;
    expect(formBox.x + formBox.width).toBeLessThanOrEqual(1280);
    await form.locator('button[type=submit]').click();
    await expect.poll(() => row.locator('[data-result]').innerText()).toContain('created');
    const rules = (await (await fetch(`${api.url()}/api/v1/alert-rules`)).json()) as { rules: Array<{ kind: string; check: string; notify: unknown }> };
    expect(rules.rules.map((r) => [r.kind, r.check, r.notify])).toEqual([['regression', 'loop_guard', [{ type: 'email', to: 'oncall@example.com' }]]]);
    await browser.screenshot('layout-compare-alert-form-1280');
  });

  it('refreshes the overview by itself, keeping its filters, and waits while a field is in use', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 375, height: 800 });
    await page.clock.install();
    const url = `${api.url()}/?window=7d&agent=booking-agent`;
    await page.goto(url);
    expect(await page.locator('[data-pipeline]').innerText()).toContain('through in about 2 min 30 s');
    await putStatus(0);

    // A field with the focus holds the refresh back.
    await page.locator('form.filters input[name=environment]').focus();
    await page.clock.runFor(35_000);
    expect(await page.locator('[data-refreshed]').innerText()).toBe('');
    await page.locator('form.filters input[name=environment]').blur();

    await page.clock.runFor(2_000);
    await expect.poll(() => page.locator('[data-refreshed]').innerText()).toMatch(/^updated \d\d:\d\d:\d\d UTC$/);
    expect(await page.locator('[data-pipeline]').innerText()).toContain('caught up');
    expect(page.url()).toBe(url);
    expect(await page.locator('form.filters select[name=window]').inputValue()).toBe('7d');
    expect(await page.locator('form.filters input[name=agent]').inputValue()).toBe('booking-agent');

    // Off stays off, across pages.
    await page.selectOption('select[data-auto-refresh]', '0');
    await putStatus(1_500);
    await page.goto(url);
    expect(await page.locator('select[data-auto-refresh]').inputValue()).toBe('0');
    await page.clock.runFor(120_000);
    expect(await page.locator('[data-pipeline]').innerText()).toContain('through in about 2 min 30 s');
    expect(await page.locator('[data-refreshed]').innerText()).toBe('');
  });
});
