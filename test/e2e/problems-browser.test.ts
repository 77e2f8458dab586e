import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProblems } from '../../shared/engines/problems/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { runsOf, sendRuns } from '../helpers/agent-runs.ts';
import { waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// The Problems page in Chromium (issue 37): runs that loop, sent through the collector of the
// embedded pipeline, become one problem; from the list a person reaches the problem, its versions
// and its sample units, and a unit's page links back to the problem.

describe('the Problems page in a browser', () => {
  let h: Harness;
  let browser: Browser;
  let looping: string[];
  beforeAll(async () => {
    h = await startPipeline({ TRACECHECK_CHECKS: 'loop_guard' }, { alerterNow: Date.now });
    const runs = runsOf('booking', 'v1', 8, 3);
    const ids = await sendRuns(runs, { collectorUrl: h.pipeline.collectorUrl() });
    looping = ids.filter((_, i) => runs[i].loops).sort();
    await waitFor(async () => ((await listProblems(h.pipeline.store!, 'default'))[0]?.count === 3 ? true : null), { timeoutMs: 60_000, description: 'the problem of three units' });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('lists the problem, opens it with its versions and samples, and badges its units', async () => {
    const { page } = browser;
    await page.goto(`${h.pipeline.apiUrl()}/problems`);
    const row = page.locator('table[data-problems] tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td').first().innerText()).toBe('booking: loop over check_availability');
    expect(await row.locator('[data-count]').innerText()).toBe('3');
    await row.locator('a').first().click();
    await page.waitForSelector('h1[data-title]');
    expect(await page.locator('h1[data-title]').innerText()).toBe('booking: loop over check_availability');
    expect(await page.locator('table[data-versions] tbody tr td').first().innerText()).toBe('v1');
    const samples = (await page.locator('ul[data-sample] code').allInnerTexts()).sort();
    expect(samples).toEqual(looping);
    // One click each: a review queue over its units, a dataset of them, an alert rule for its changes.
    const result = page.locator('[data-problem-actions] [data-result]');
    await page.locator('button[data-problem-action="queue"]').click();
    await page.waitForSelector('[data-problem-actions] [data-result]:not([hidden])');
    expect(await result.innerText()).toBe('Review queue "Problem: booking: loop over check_availability" created with 3 units. Open the queue');
    await page.locator('button[data-problem-action="dataset"]').click();
    await waitFor(async () => ((await result.innerText()).startsWith('Dataset') ? true : null), { timeoutMs: 10_000, description: 'the dataset made' });
    const problemId = (await listProblems(h.pipeline.store!, 'default'))[0].id;
    expect(await result.innerText()).toBe(`Dataset problem-${problemId} version 1: 3 units.`);
    await page.locator('button[data-problem-action="alert-rule"]').click();
    await waitFor(async () => ((await result.innerText()).startsWith('Alert rule') ? true : null), { timeoutMs: 10_000, description: 'the rule made' });
    expect(await result.innerText()).toBe('Alert rule "Problem: booking: loop over check_availability" created. Open alerts');
    await page.locator('ul[data-sample] a').first().click();
    await page.waitForSelector('[data-problem-badge]');
    expect(await page.locator('[data-problem-badge]').innerText()).toBe('problem: booking: loop over check_availability');
    await browser.screenshot('problems-unit-badge');
  });
});
