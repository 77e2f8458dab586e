import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProblems } from '../../shared/engines/problems/index.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { runsOf, sendRuns } from '../helpers/agent-runs.ts';
import { waitFor } from '../helpers/infra.ts';
import { startPipeline, type Harness } from '../helpers/pipeline-harness.ts';

// The Problems page in Chromium (issue 37): runs that loop, sent through the collector of the
// embedded pipeline, become one problem; from the list a person reaches the problem, its versions
// and its sample units, and a unit's page links back to the problem; one click each makes a review
// queue, a dataset, an alert rule and a proposed check, tried before it is saved.

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
    const result = page.locator('[data-problem-actions] > [data-result]');
    await page.locator('button[data-problem-action="queue"]').click();
    await page.waitForSelector('[data-problem-actions] > [data-result]:not([hidden])');
    expect(await result.innerText()).toBe('Review queue "Problem: booking: loop over check_availability" created with 3 units. Open the queue');
    await page.locator('button[data-problem-action="dataset"]').click();
    await waitFor(async () => ((await result.innerText()).startsWith('Dataset') ? true : null), { timeoutMs: 10_000, description: 'the dataset made' });
    const problemId = (await listProblems(h.pipeline.store!, 'default'))[0].id;
    expect(await result.innerText()).toBe(`Dataset problem-${problemId} version 1: 3 units.`);
    await page.locator('button[data-problem-action="alert-rule"]').click();
    await waitFor(async () => ((await result.innerText()).startsWith('Alert rule') ? true : null), { timeoutMs: 10_000, description: 'the rule made' });
    expect(await result.innerText()).toBe('Alert rule "Problem: booking: loop over check_availability" created. Open alerts');
    // A proposed check: written by the judge model (our model server), tried before it is saved.
    await page.locator('button[data-problem-action="proposed-check"]').click();
    await waitFor(async () => ((await result.innerText()).startsWith('Proposed check') ? true : null), { timeoutMs: 60_000, description: 'the proposed check tried' });
    const name = `problem_${problemId.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
    // The model server's generated check passes any run with an answer: it agrees on the three clean
    // runs of the agent and not on the three that loop.
    expect(await result.innerText()).toBe(`Proposed check ${name}: 3/6 labelled units agree (50.0%). Labels: 3 in the problem, 0 reviewed, 3 that failed nothing.`);
    expect(await page.locator('[data-proposal-code]').innerText()).toContain('CodeBasedCheck');
    await page.locator('button[data-save-proposal]').click();
    const saved = page.locator('[data-proposal] [data-result]');
    await waitFor(async () => ((await saved.innerText()).startsWith('Saved') ? true : null), { timeoutMs: 10_000, description: 'the proposed check saved' });
    const checks = (await (await fetch(`${h.pipeline.apiUrl()}/api/v1/checks`)).json()) as { checks: Array<{ name: string; source: string; kind: string; version: string }> };
    const mine = checks.checks.filter((c) => c.name === name);
    expect(mine.map((c) => [c.source, c.kind])).toEqual([['user', 'code']]);
    expect(await saved.innerText()).toBe(`Saved: check ${name} version ${mine[0].version}. Open the check`);
    await page.locator('ul[data-sample] a').first().click();
    await page.waitForSelector('[data-problem-badge]');
    expect(await page.locator('[data-problem-badge]').innerText()).toBe('problem: booking: loop over check_availability');
    await browser.screenshot('problems-unit-badge');
  });
});
