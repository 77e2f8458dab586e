// What the documentation tests read of a Markdown file: its words (as `wc -w` counts them), its
// relative links, and the anchors its headings make. Pure functions over the text.

/** Words as `wc -w` counts them: runs of non-blank characters. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** A document without its fenced code blocks (a `# comment` there is no heading). */
function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The prose of a document: code blocks and inline code removed (they may hold brackets that are not links). */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, '');
}

/** Targets of the links and images that point inside the repository: `docs/api.md#x`, `../README.md`, `#x`. */
export function relativeLinks(text: string): string[] {
  const targets = [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The anchors GitHub makes of a document's headings (lower case, punctuation dropped, spaces to hyphens; repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Each heading's section (the text up to the next heading, code blocks and table rows left out) with its prose's word count; the text before the first heading is `(top)`. */
export function sectionWords(text: string): Array<{ heading: string; words: number }> {
  const sections: Array<{ heading: string; words: number }> = [{ heading: '(top)', words: 0 }];
  for (const line of withoutFences(text).split('\n')) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) sections.push({ heading: heading[1], words: 0 });
    else if (!line.startsWith('|')) sections[sections.length - 1].words += wordCount(line);
  }
  return sections;
}
