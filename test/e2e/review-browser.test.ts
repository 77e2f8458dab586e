import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseStore, createDuckDbStore, type Store } from '../../shared/adapters/store/index.ts';
import { createKeyring } from '../../shared/kit/access/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { wilsonInterval } from '../../shared/engines/stats/index.ts';
import { createApiServer } from '../../services/api/src/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { testClickHouseUrl, uniqueName } from '../helpers/infra.ts';
import { makeScore, makeUnit } from '../integration/store/store-fixtures.ts';

// The review pages in headless Chromium, on both stores: a queue over 30 loop_guard failures, a
// reviewer who uses only the keyboard (agrees on 25, disagrees on 5, one with a note), the check
// page's agreement (25/30, the exact Wilson interval and kappa), then a second reviewer who
// disagrees on 3 of the same units and the inter-reviewer agreement. The time the first reviewer
// takes is logged (the keyboard path, end to end through the API and the store).

const MODES = [
  { key: 'duckdb', create: (): Store => createDuckDbStore({ path: ':memory:', log: createSilentLogger() }), drop: async () => {} },
  (() => {
    const database = uniqueName('e2e_review');
    return {
      key: 'clickhouse',
      create: (): Store => createClickHouseStore({ url: testClickHouseUrl(), database, log: createSilentLogger() }),
      drop: async () => {
        await fetch(testClickHouseUrl(), { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` });
      },
    };
  })(),
];

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

for (const mode of MODES) {
  describe(`review in a browser: ${mode.key}`, () => {
    let store: Store;
    let api: ReturnType<typeof createApiServer>;
    let browser: Browser;
    let admin = '';
    const ids: string[] = [];

    beforeAll(async () => {
      store = mode.create();
      await store.start();
      const log = createSilentLogger();
      const keyring = createKeyring({ store, log });
      admin = (await keyring.create('shop', 'admin')).key;
      // Within the check page's default window (the last 24 h).
      const end = Date.now() - 3_600_000;
      const items = [];
      for (let i = 0; i < 30; i++) {
        const unit = makeUnit({ project: 'shop', end_time_ms: end, start_time_ms: end - 4_000, unit_id: `loop-${String(i).padStart(2, '0')}-${randomUUID().slice(0, 8)}`, model_output: `answer ${i}` });
        ids.push(unit.unit_id);
        items.push(
          {
            unit,
            scores: [
              makeScore({ project: 'shop', unit_id: unit.unit_id, check: 'loop_guard', check_version: 'lg1', passed: false, value: 0, method: 'deterministic', explanation: `lookup_order called 4 times (${i})`, unit_end_time_ms: end, created_at_ms: end + i }),
              makeScore({ project: 'shop', unit_id: unit.unit_id, check: 'task_completed', passed: true, value: 1, unit_end_time_ms: end, created_at_ms: end + i }),
            ],
          },
        );
      }
      await store.writeScoredUnits(items);
      api = createApiServer({ host: '127.0.0.1', port: 0, store, log, keyring });
      await api.start();
      const res = await fetch(`${api.url()}/api/v1/review-queues`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'loop_guard failures', filter: { check: 'loop_guard', passed: false } }),
      });
      expect(res.status).toBe(201);
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await api?.shutdown();
      await store?.shutdown();
      await mode.drop();
    });

    const review = async (reviewer: string, agrees: (i: number) => boolean, noteAt: number | null): Promise<number> => {
      const { page } = browser;
      await page.goto(`${api.url()}/review-queues`);
      await page.fill('[data-reviewer-name]', reviewer);
      await page.keyboard.press('Enter');
      const started = performance.now();
      for (let i = 0; i < 30; i++) {
        await page.waitForSelector(`[data-review][data-unit="${ids[i]}"]`);
        // The review box holds the focus from load: keys need no click.
        expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { hasAttribute(a: string): boolean } | null } }).document.activeElement?.hasAttribute('data-review'))).toBe(true);
        expect(await page.textContent('[data-position]')).toBe(`${i + 1}/30`);
        if (i === noteAt) {
          await page.keyboard.press('t');
          await page.keyboard.type('retries, not a loop');
          await page.keyboard.press('Escape');
        }
        await page.keyboard.press(agrees(i) ? '1' : '0');
      }
      await page.waitForSelector('[data-queue-done]');
      return performance.now() - started;
    };

    it('a reviewer works through the queue with the keyboard only; the check page shows 25/30, the Wilson interval and kappa', async () => {
      const { page } = browser;
      await page.goto(`${api.url()}/login`);
      await page.fill('#key', admin);
      await page.click('button[type=submit]');
      await page.waitForURL(`${api.url()}/`);

      // Skip forward and back first: s moves on without a review, k comes back to the first.
      await page.goto(`${api.url()}/review-queues`);
      await page.fill('[data-reviewer-name]', 'ann');
      await page.keyboard.press('Enter');
      await page.waitForSelector(`[data-review][data-unit="${ids[0]}"]`);
      expect(await page.textContent('[data-verdict] [data-explanation]')).toBe('lookup_order called 4 times (0)');
      expect(await page.locator('[data-transcript] [data-turn]').count()).toBeGreaterThan(0);
      await page.keyboard.press('s');
      await page.waitForSelector(`[data-review][data-unit="${ids[1]}"]`);
      await page.keyboard.press('k');
      await page.waitForSelector(`[data-review][data-unit="${ids[0]}"]`);

      const ms = await review('ann', (i) => i < 25, 27);
      process.stdout.write(`[review-browser ${mode.key}] 30 units reviewed with the keyboard in ${(ms / 1000).toFixed(1)} s (${(ms / 30).toFixed(0)} ms per unit)\n`);
      await browser.screenshot(`${mode.key}-review-done`);

      await page.goto(`${api.url()}/checks/loop_guard`);
      const w = wilsonInterval(25, 30);
      expect(await page.textContent('[data-agreement-version="lg1"] [data-agreement-rate]')).toBe('25/30 (83.3%)');
      expect(await page.textContent('[data-agreement-version="lg1"] [data-agreement-ci]')).toBe(`${pct(w.lower)} – ${pct(w.upper)}`);
      expect(await page.textContent('[data-agreement-version="lg1"] [data-agreement-ci]')).toBe('66.4% – 92.7%');
      // Every verdict of the check was "fail": kappa is exactly 0 for this table.
      expect(await page.textContent('[data-agreement-version="lg1"] [data-kappa]')).toBe('0.000');
      await browser.screenshot(`${mode.key}-review-agreement`);

      const notes = (await (await fetch(`${api.url()}/api/v1/reviews?reviewer=ann&agrees=false`, { headers: { Authorization: `Bearer ${admin}` } })).json()) as { reviews: { unit_id: string; note: string }[] };
      expect(notes.reviews.map((r) => r.unit_id).sort()).toEqual(ids.slice(25));
      expect(notes.reviews.filter((r) => r.note !== '').map((r) => [r.unit_id, r.note])).toEqual([[ids[27], 'retries, not a loop']]);
    });

    it('a second reviewer disagrees on 3 of the same units: inter-reviewer agreement 28/30, kappa 0.714', async () => {
      const { page } = browser;
      // Bob confirms 3 of Ann's 5 disagreements (units 25–27) and agrees with the check elsewhere.
      await review('bob', (i) => i < 25 || i >= 28, null);
      await page.goto(`${api.url()}/checks/loop_guard`);
      expect(await page.textContent('[data-pairwise]')).toBe('28/30 pairs agree (93.3%)');
      // po = 28/30, pe = (25·27 + 5·3)/900 = 690/900: kappa = 150/210 = 0.714.
      expect(await page.textContent('[data-inter-kappa]')).toBe("Cohen's κ 0.714");
      expect(await page.textContent('[data-agreement-version="lg1"] [data-agreement-rate]')).toBe('52/60 (86.7%)');
      await browser.screenshot(`${mode.key}-review-inter-reviewer`);
    });
  });
}
