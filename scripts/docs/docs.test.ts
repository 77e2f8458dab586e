import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks, wordCount } from './markdown-links.ts';

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
