import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../shared/adapters/store/index.ts';
import { createKeyring } from '../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createApiServer } from '../../services/api/src/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { testClickHouseUrl, uniqueName } from '../helpers/infra.ts';
import { dropDatabase } from '../helpers/score-counts.ts';
import { makeScore, makeUnit } from '../integration/store/store-fixtures.ts';

// "Add to dataset" in headless Chromium, with the keyboard: checkboxes on the check page's failing
// units and on the compare page, one form each; the stored dataset holds exactly the checked units
// (one of them with an id full of markup, which the page must carry unharmed). Another project's
// key sees no such dataset. Both stores.

const database = uniqueName('e2e_dataset_select');
const MODES = [
  { key: 'duckdb', create: (): Store => createDuckDbStore({ path: ':memory:', log: createSilentLogger() }), drop: () => Promise.resolve() },
  { key: 'clickhouse', create: (): Store => createClickHouseStore({ url: testClickHouseUrl(), database, log: createSilentLogger() }), drop: () => dropDatabase(testClickHouseUrl(), database) },
];

describe.each(MODES)('add to dataset in a browser: $key', (mode) => {
  let store: Store;
  let api: ReturnType<typeof createApiServer>;
  let browser: Browser;
  const keys = { admin: '', bank: '' };
  const evil = `evil-<b>"'&x`;
  const v2 = ['v2-a', 'v2-b', evil];

  beforeAll(async () => {
    const log = createSilentLogger();
    store = mode.create();
    await store.start();
    const keyring = createKeyring({ store, log });
    keys.admin = (await keyring.create('shop', 'admin')).key;
    keys.bank = (await keyring.create('bank', 'admin')).key;
    const end = Date.now() - 3_600_000;
    const item = (id: string, version: string, passed: boolean, i: number) => ({
      unit: makeUnit({ project: 'shop', unit_id: id, agent_version: version, end_time_ms: end, start_time_ms: end - 1_000 }),
      scores: [makeScore({ project: 'shop', unit_id: id, agent_version: version, check: 'loop_guard', check_version: 'lg1', passed, value: passed ? 1 : 0, method: 'deterministic', explanation: passed ? 'fine' : 'loops', unit_end_time_ms: end, created_at_ms: end + i })],
    });
    await store.writeScoredUnits([...['v1-a', 'v1-b', 'v1-c'].map((id, i) => item(id, 'v1', true, i)), ...v2.map((id, i) => item(id, 'v2', false, 10 + i))]);
    api = createApiServer({ host: '127.0.0.1', port: 0, store, log, keyring });
    await api.start();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await api?.shutdown();
    await store?.shutdown();
    await mode.drop();
  });

  const dataset = async (name: string, key: string): Promise<{ status: number; ids: string[] }> => {
    const res = await fetch(`${api.url()}/api/v1/datasets/${name}`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, ids: res.ok ? ((await res.json()) as { items: { unit_id: string }[] }).items.map((i) => i.unit_id) : [] };
  };

  it('checks failing units on the check page and on the compare page, and adds them to datasets', async () => {
    const { page } = browser;
    await page.goto(`${api.url()}/login`);
    await page.fill('#key', keys.admin);
    await page.click('button[type=submit]');
    await page.waitForURL(`${api.url()}/`);

    await page.goto(`${api.url()}/checks/loop_guard`);
    const boxes = page.locator('[data-failing-units] input[data-unit-select]');
    expect(await boxes.evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value))).toEqual([...v2].reverse());
    // Keyboard only: focus a box, Space checks it; the name field, Enter submits.
    for (const id of ['v2-a', evil]) {
      await page.locator(`input[data-unit-select][value="${id.replace(/["\\]/g, '\\$&')}"]`).focus();
      await page.keyboard.press('Space');
    }
    await page.locator('[data-dataset-name]').focus();
    await page.keyboard.type('loop-failures');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-dataset-form] [data-result].ok');
    expect(await page.textContent('[data-dataset-form] [data-result]')).toBe('Dataset loop-failures version 1: 2 units.');
    expect((await dataset('loop-failures', keys.admin)).ids.sort()).toEqual(['v2-a', evil].sort());

    await page.goto(`${api.url()}/compare?a.agent_version=v1&b.agent_version=v2`);
    await page.locator('[data-check="loop_guard"] input[data-unit-select]').focus();
    await page.keyboard.press('Space');
    await page.locator('[data-dataset-name]').focus();
    await page.keyboard.type('v2-regressions');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-dataset-form] [data-result].ok');
    expect(await page.textContent('[data-dataset-form] [data-result]')).toBe('Dataset v2-regressions version 1: 3 units.');
    await browser.screenshot(`${mode.key}-dataset-select-compare`);
    expect((await dataset('v2-regressions', keys.admin)).ids.sort()).toEqual([...v2].sort());
    expect(await dataset('v2-regressions', keys.bank)).toEqual({ status: 404, ids: [] });

    // Nothing checked: the form says so and stores nothing.
    await page.goto(`${api.url()}/checks/loop_guard`);
    await page.locator('[data-dataset-name]').focus();
    await page.keyboard.type('empty');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-dataset-form] [data-result].err');
    expect(await page.textContent('[data-dataset-form] [data-result]')).toBe('Select at least one unit first.');
    expect((await dataset('empty', keys.admin)).status).toBe(404);
  });
});
