import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../shared/adapters/store/index.ts';
import { createKeyring } from '../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createApiServer } from '../../services/api/src/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { testClickHouseUrl, uniqueName } from '../helpers/infra.ts';
import { dropDatabase } from '../helpers/score-counts.ts';
import { makeScore, makeUnit } from '../integration/store/store-fixtures.ts';

// The explorer (issue 34) in headless Chromium: /units lists the project's runs newest first; a
// search typed in the box, a check verdict picked in the form and a click on a column header each
// land in the URL and narrow or reorder the rows; next page, a row's unit page and its way back;
// /sessions. Another project's matching unit never shows. Both stores.

const database = uniqueName('e2e_explorer');
const MODES = [
  { key: 'duckdb', create: (): Store => createDuckDbStore({ path: ':memory:', log: createSilentLogger() }), drop: () => Promise.resolve() },
  { key: 'clickhouse', create: (): Store => createClickHouseStore({ url: testClickHouseUrl(), database, log: createSilentLogger() }), drop: () => dropDatabase(testClickHouseUrl(), database) },
];

describe.each(MODES)('the explorer in a browser: $key', (mode) => {
  let store: Store;
  let api: ReturnType<typeof createApiServer>;
  let browser: Browser;
  const end = Date.now() - 3_600_000;

  beforeAll(async () => {
    const log = createSilentLogger();
    store = mode.create();
    await store.start();
    const keyring = createKeyring({ store, log });
    const shop = (await keyring.create('shop', 'read')).key;
    const item = (i: number, text: string, passed: boolean, project = 'shop') => {
      const id = `${project}-${i}`;
      const unit = makeUnit({ project, unit_id: id, kind: i === 6 ? 'session' : 'trace', end_time_ms: end - i * 60_000, start_time_ms: end - i * 60_000 - 1_000, message_history: [{ role: 'user', content: text }], llm_calls: 1, cost_usd: [0.02, 0.05, 0.01, 0.04, 0.03, 0.06, 0.07][i], duration_ms: 1_000 });
      return { unit, scores: [makeScore({ project, unit_id: id, check: 'grounded', passed, value: passed ? 1 : 0, unit_end_time_ms: unit.end_time_ms })] };
    };
    await store.writeScoredUnits([
      item(0, 'I want a refund for order 7', false),
      item(1, 'Where is my parcel?', true),
      item(2, 'Refund status please', true),
      item(3, 'Change my address', false),
      item(4, 'Cancel the subscription', true),
      item(5, 'Hello there', true),
      item(6, 'A whole conversation about a REFUND', false),
      item(0, 'refund for the bank', false, 'bank'),
    ]);
    api = createApiServer({ host: '127.0.0.1', port: 0, store, log, keyring });
    await api.start();
    browser = await launchBrowser();
    await browser.page.goto(`${api.url()}/login`);
    await browser.page.fill('#key', shop);
    await browser.page.click('button[type=submit]');
    await browser.page.waitForURL(`${api.url()}/`);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.shutdown();
    await store?.shutdown();
    await mode.drop();
  });

  const rows = () => browser.page.locator('tr[data-unit]').evaluateAll((els) => els.map((e) => (e as unknown as { getAttribute(name: string): string | null }).getAttribute('data-unit')));

  it('lists, searches, filters by a verdict and sorts, each kept in the URL', async () => {
    const { page } = browser;
    await page.click('nav a[href="/units"]');
    await page.waitForURL(`${api.url()}/units`);
    expect(await rows()).toEqual(['shop-0', 'shop-1', 'shop-2', 'shop-3', 'shop-4', 'shop-5', 'shop-6']);

    await page.fill('input[name=q]', 'refund');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/units\?.*q=refund/);
    expect(await rows()).toEqual(['shop-0', 'shop-2', 'shop-6']);

    await page.fill('input[name=check]', 'grounded');
    await page.selectOption('select[name=verdict]', 'fail');
    await page.click('form.explorer button[type=submit]');
    await page.waitForURL(/verdict=fail/);
    expect(new URL(page.url()).searchParams.get('q')).toBe('refund');
    expect(await rows()).toEqual(['shop-0', 'shop-6']);
    expect(await page.locator('tr[data-unit="shop-0"] [data-badge="grounded"]').getAttribute('class')).toBe('badge fail');

    await page.goto(`${api.url()}/units`);
    await page.click('a[data-sort="cost"]');
    await page.waitForURL(/sort=cost/);
    expect(await rows()).toEqual(['shop-6', 'shop-5', 'shop-1', 'shop-3', 'shop-4', 'shop-0', 'shop-2']);
    await browser.screenshot(`explorer-${mode.key}`);
  });

  it('pages on, opens a unit and comes back; /sessions lists the sessions', async () => {
    const { page } = browser;
    await page.goto(`${api.url()}/units?limit=4`);
    expect(await rows()).toEqual(['shop-0', 'shop-1', 'shop-2', 'shop-3']);
    await page.click('a[data-next-page]');
    await page.waitForURL(/cursor=/);
    expect(await rows()).toEqual(['shop-4', 'shop-5', 'shop-6']);
    expect(await page.locator('a[data-next-page]').count()).toBe(0);

    await page.click('tr[data-unit="shop-5"] td:first-child a');
    await page.waitForURL(`${api.url()}/units/shop-5`);
    await page.click('a[data-explorer-back]');
    await page.waitForURL(`${api.url()}/units`);

    await page.click('nav a[href="/sessions"]');
    await page.waitForURL(`${api.url()}/sessions`);
    expect(await rows()).toEqual(['shop-6']);
  });
});
