import { describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks, sectionWords, wordCount } from './markdown-links.ts';

describe('wordCount', () => {
  it('counts as wc -w does', () => {
    expect(wordCount('  one two\n\tthree — four`x`\n')).toBe(5);
    expect(wordCount('')).toBe(0);
  });
});

describe('relativeLinks', () => {
  it('lists links and images inside the repository, not URLs, code or judge markers', () => {
    const text = [
      'See [api](docs/api.md), [x](../README.md#architecture "title"), [here](#quick-start) and ![pic](docs/a.png).',
      'Not [web](https://example.com), [mail](mailto:a@b.c), `[code](nope.md)`, the judge answers [[1]] ((why)).',
      '```md',
      '[fenced](missing.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(text)).toEqual(['docs/api.md', '../README.md#architecture', '#quick-start', 'docs/a.png']);
  });
});

describe('headingAnchors', () => {
  it('makes the anchors GitHub makes', () => {
    const text = '# Security\n## The dashboard\n## Sandboxes for code checks\n### `tracecheck eval`: suites & more\n## Notes\n## Notes\n```sh\n# not a heading\n```\n';
    expect([...headingAnchors(text)]).toEqual(['security', 'the-dashboard', 'sandboxes-for-code-checks', 'tracecheck-eval-suites--more', 'notes', 'notes-1']);
  });
});

describe('sectionWords', () => {
  it("counts each section's prose: headings split it, code blocks and table rows do not count", () => {
    const text = ['intro two', '', '## One', 'three words here', '```sh', '# not a heading', 'echo a b c', '```', '| a | b |', '|---|---|', '| c | d |', 'and two', '### Two', 'x'].join('\n');
    expect(sectionWords(text)).toEqual([
      { heading: '(top)', words: 2 },
      { heading: 'One', words: 5 },
      { heading: 'Two', words: 1 },
    ]);
  });
});
