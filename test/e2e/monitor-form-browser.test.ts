import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../shared/adapters/store/index.ts';
import { createKeyring } from '../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createApiServer } from '../../services/api/src/index.ts';
import { createCheckRegistry } from '../../shared/engines/checks/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { testClickHouseUrl, uniqueName } from '../helpers/infra.ts';
import { makeUnit } from '../integration/store/store-fixtures.ts';

// The checks page's monitor form in headless Chromium, on both stores, with two agents seen this
// week (alpha and beta, ten units each, scored by the defaults): a check name with a typo is refused with the
// closest name; a monitor for alpha alone warns, before it is saved, that beta would get no check,
// and saves on the second click; it is then edited and deleted from the page. What the page shows is
// compared with what the API answers for the same body.

const MODES = [
  { key: 'duckdb', create: (): Store => createDuckDbStore({ path: ':memory:', log: createSilentLogger() }), drop: async () => {} },
  (() => {
    const database = uniqueName('e2e_monitor_form');
    return {
      key: 'clickhouse',
      create: (): Store => createClickHouseStore({ url: testClickHouseUrl(), database, log: createSilentLogger() }),
      drop: async () => {
        await fetch(testClickHouseUrl(), { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` });
      },
    };
  })(),
];

const TYPO = { name: 'alpha-only', checks: ['task_complted'], filters: { agent: 'alpha' }, sample_rate: 1 };
const MONITOR = { ...TYPO, checks: ['task_completed'] };

for (const mode of MODES) {
  describe(`the monitor form in a browser: ${mode.key}`, () => {
    let store: Store;
    let api: ReturnType<typeof createApiServer>;
    let browser: Browser;
    let admin = '';

    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> | null }> => {
      const res = await fetch(`${api.url()}${path}`, { method, headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
    };

    beforeAll(async () => {
      store = mode.create();
      await store.start();
      const log = createSilentLogger();
      const keyring = createKeyring({ store, log });
      admin = (await keyring.create('shop', 'admin')).key;
      const end = Date.now() - 3_600_000;
      const items = ['alpha', 'beta'].flatMap((agent) =>
        Array.from({ length: 10 }, (_, i) => ({ unit: makeUnit({ project: 'shop', agent_name: agent, unit_id: `${agent}-${i}-${mode.key}`, end_time_ms: end + i, start_time_ms: end + i - 2_000 }), scores: [] })),
      );
      await store.writeScoredUnits(items);
      // As `up` serves it with TRACECHECK_CHECKS=task_completed: the defaults score both agents.
      const registry = createCheckRegistry();
      api = createApiServer({ host: '127.0.0.1', port: 0, store, log, keyring, checks: { registry, live: ['task_completed'] }, createRegistry: () => registry });
      await api.start();
      browser = await launchBrowser();
      const { page } = browser;
      await page.goto(`${api.url()}/login`);
      await page.fill('#key', admin);
      await page.click('button[type=submit]');
      await page.waitForURL(`${api.url()}/`);
    });

    afterAll(async () => {
      await browser?.close();
      await api?.shutdown();
      await store?.shutdown();
      await mode.drop();
    });

    it('a misspelt check is refused with the closest name, as the API refuses it', async () => {
      const { page } = browser;
      const answer = await call('POST', '/api/v1/monitors?dry_run=true', TYPO);
      expect(answer.status).toBe(400);
      expect(String(answer.json?.error)).toContain('task_completed');
      await page.goto(`${api.url()}/checks`);
      await page.fill('form[data-monitor-form] textarea', JSON.stringify(TYPO));
      await page.click('form[data-monitor-form] button[type=submit]');
      await page.waitForSelector('form[data-monitor-form] [data-result].err');
      expect(await page.textContent('form[data-monitor-form] [data-result]')).toBe(answer.json?.error);
      expect((await call('GET', '/api/v1/monitors')).json?.monitors).toEqual([]);
    });

    it('a monitor for alpha alone warns that beta would get no check, and saves on the second click', async () => {
      const { page } = browser;
      const preview = await call('POST', '/api/v1/monitors?dry_run=true', MONITOR);
      expect(preview.status).toBe(200);
      const warning = 'Saving monitor "alpha-only" leaves an agent seen in the last 7 days with no check: beta (trace units). Once a project has monitors, they decide: add a monitor for it, or widen this one\'s filters.';
      expect(preview.json?.warning).toBe(warning);
      await page.fill('form[data-monitor-form] textarea', JSON.stringify(MONITOR));
      await page.click('form[data-monitor-form] button[type=submit]');
      await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('form[data-monitor-form] button[type=submit]')?.textContent === 'Save anyway');
      expect(await page.textContent('form[data-monitor-form] [data-result]')).toBe(`${warning} Click "Save anyway" to save it.`);
      expect(await page.locator('form[data-monitor-form] [data-preview] li').allTextContents()).toEqual(['alpha (trace units): task_completed', 'beta (trace units): no check runs']);
      expect((await call('GET', '/api/v1/monitors')).json?.monitors).toEqual([]);
      await Promise.all([page.waitForEvent('load'), page.click('form[data-monitor-form] button[type=submit]')]);
      await page.waitForSelector('[data-monitor-row="alpha-only"]');
      expect(await page.locator('[data-monitor-row="alpha-only"] td').allTextContents()).toEqual(['alpha-only', 'on', 'task_completed', 'agent=alpha', '100%', '–', 'Edit Delete']);
      const saved = (await call('GET', '/api/v1/monitors')).json?.monitors as Array<{ name: string; checks: string[]; filters: unknown; sample_rate: number }>;
      expect(saved.map((m) => [m.name, m.checks, m.filters, m.sample_rate])).toEqual([['alpha-only', ['task_completed'], { agent: 'alpha' }, 1]]);
      expect(await page.getAttribute('[data-plan-agent="beta"] .badge', 'class')).toBe('badge fail');
    });

    it('edit from the row: the form holds the monitor, and a new sample rate is saved', async () => {
      const { page } = browser;
      await page.click('[data-monitor-row="alpha-only"] [data-edit-monitor]');
      const held = JSON.parse(await page.inputValue('form[data-monitor-form] textarea')) as Record<string, unknown>;
      // Exactly what PUT takes: no project, timestamps or plan source.
      expect(held).toEqual({ ...MONITOR, enabled: true });
      await page.fill('form[data-monitor-form] textarea', JSON.stringify({ ...held, sample_rate: 0.5 }));
      // beta has no check already, and half of alpha's ten units are still scored: one click saves.
      await Promise.all([page.waitForEvent('load'), page.click('form[data-monitor-form] button[type=submit]')]);
      await page.waitForSelector('[data-monitor-row="alpha-only"]');
      expect(await page.textContent('[data-monitor-row="alpha-only"] td.num')).toBe('50%');
      const saved = (await call('GET', '/api/v1/monitors')).json?.monitors as Array<{ name: string; sample_rate: number }>;
      expect(saved.map((m) => [m.name, m.sample_rate])).toEqual([['alpha-only', 0.5]]);
    });

    it('delete from the row, after the confirmation', async () => {
      const { page } = browser;
      page.once('dialog', (d) => void d.accept());
      await Promise.all([page.waitForEvent('load'), page.click('[data-monitor-row="alpha-only"] [data-delete-monitor]')]);
      expect(await page.locator('[data-monitor-row]').count()).toBe(0);
      expect((await call('GET', '/api/v1/monitors')).json?.monitors).toEqual([]);
      await browser.screenshot(`${mode.key}-monitor-form-deleted`);
    });
  });
}
