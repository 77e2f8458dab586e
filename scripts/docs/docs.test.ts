import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCheckRegistry, type RunnableCheck } from '../../shared/engines/checks/index.ts';
import { ConfigSchema } from '../../shared/runtime/config/index.ts';
import { createSilentLogger } from '../../shared/runtime/logging/index.ts';
import { createMetrics } from '../../shared/kit/metrics/index.ts';
import { createDuckDbStore } from '../../shared/adapters/store/index.ts';
import { createApp } from '../../services/api/src/index.ts';
import { headingAnchors, relativeLinks, sectionWords, wordCount } from './markdown-links.ts';

// The README is what a newcomer reads in five minutes; the reference lives in docs/, one page per
// subject, each linked from the README. These tests keep it that way.
const ROOT = resolve(import.meta.dirname, '..', '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f));
const read = (file: string): string => readFileSync(file, 'utf8');

/** Every relative link of a file that leads nowhere: a missing file, or a missing heading of a Markdown file. */
function brokenLinks(file: string): string[] {
  return relativeLinks(read(file)).filter((link) => {
    const [path, anchor] = link.split('#', 2);
    const target = path ? resolve(dirname(file), decodeURI(path)) : file;
    if (!existsSync(target)) return true;
    if (!anchor || !target.endsWith('.md') || statSync(target).isDirectory()) return false;
    return !headingAnchors(read(target)).has(anchor);
  });
}

describe('README.md', () => {
  it('is under 2,000 words', () => {
    expect(wordCount(read(README))).toBeLessThan(2_000);
  });

  it('links every page of docs/', () => {
    const linked = new Set(relativeLinks(read(README)).map((l) => resolve(ROOT, l.split('#')[0])));
    expect(pages.filter((p) => !linked.has(p)).map((p) => relative(ROOT, p))).toEqual([]);
  });

  it('keeps the test command that .ci/run runs', () => {
    expect(read(join(ROOT, '.ci', 'run'))).toContain('npm test');
    expect(read(README)).toContain('npm ci && npm test');
  });

  it('has no relative link to a missing file or heading', () => {
    expect(brokenLinks(README)).toEqual([]);
  });
});

describe('docs/', () => {
  it.each(pages.map((p) => [relative(ROOT, p), p]))('%s has no relative link to a missing file or heading', (_name, page) => {
    expect(brokenLinks(page)).toEqual([]);
  });
});

/** A page a person scans: no stretch of prose longer than this without a heading (tables and code apart). */
const MAX_SECTION_WORDS = 900;

describe('docs/ pages are sectioned', () => {
  it.each(pages.map((p) => [relative(ROOT, p), p]))('%s has a heading at least every 900 words of prose', (_name, page) => {
    expect(sectionWords(read(page)).filter((s) => s.words > MAX_SECTION_WORDS)).toEqual([]);
  });

  it('docs/configuration.md groups its variables under a section per component', () => {
    const sections = read(join(DOCS, 'configuration.md')).split(/^## /m);
    expect(sections[0]).not.toMatch(/^\| `/m);
    expect(sections.length).toBeGreaterThanOrEqual(8);
  });
});

describe('docs/checks.md', () => {
  it('lists every check of the catalog once, with its output as the catalog defines it', () => {
    const rows = [...read(join(DOCS, 'checks.md')).matchAll(/^\| `([a-z_]+)` \| [a-z]+ \| [^|]+ \| ([^|]+) \|$/gm)].map((m) => `${m[1]}: ${m[2].trim()}`);
    // The table's words for an output: pass/fail, an open score, or a range with its pass mark.
    const output = (c: RunnableCheck): string => {
      if (c.outputType === 'pass_fail') return 'pass/fail';
      const [low, high] = c.range ?? [0, Number.MAX_SAFE_INTEGER];
      return high === Number.MAX_SAFE_INTEGER ? `score ≥ ${low}` : `score ${low}–${high}, passes ≥ ${c.threshold}`;
    };
    expect(rows.sort()).toEqual(createCheckRegistry().list().map((c) => `${c.name}: ${output(c)}`).sort());
  });
});

describe('docs/configuration.md', () => {
  it('names every environment variable tracecheck reads, and no other', () => {
    const documented = new Set(read(join(DOCS, 'configuration.md')).match(/\b(TRACECHECK|OPENAI|LLMEVAL)_[A-Z_]+[A-Z]\b/g));
    expect([...documented].sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
  });
});

describe('docs/api.md', () => {
  it('describes every operation of the OpenAPI document, and no other', async () => {
    const log = createSilentLogger();
    const store = createDuckDbStore({ path: ':memory:', log });
    const app = createApp({ store, log, now: Date.now });
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    await store.shutdown();
    const served = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    // `POST/GET /api/v1/alert-rules`: each method of a row with its path.
    const documented = [...read(join(DOCS, 'api.md')).matchAll(/`((?:GET|POST|PUT|DELETE)(?:\/(?:GET|POST|PUT|DELETE))*) (\/api\/[^\s?`]+)/g)].flatMap((m) => m[1].split('/').map((method) => `${method} ${m[2]}`));
    expect([...new Set(documented)].sort()).toEqual(served.sort());
  });
});

describe('docs/metrics.md', () => {
  it("names every metric of tracecheck's own", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    const page = read(join(DOCS, 'metrics.md'));
    expect(names.filter((name) => !page.includes(`\`${name}\``) && !page.includes(`\`${name}{`))).toEqual([]);
  });
});
