import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

// Headless Chromium for the dashboard tests: Debian's package (scripts/chromium.sh installs it),
// driven by playwright-core, which never downloads a browser. A fresh profile per run, no network
// beyond what the page asks of our own server.

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = resolve(import.meta.dirname, '../../.cache/screenshots');

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Saves a full-page PNG under .cache/screenshots/ (a test artefact). */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'tracecheck-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    async screenshot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
