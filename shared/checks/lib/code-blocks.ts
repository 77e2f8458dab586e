export interface CodeBlock {
  language: 'python' | 'javascript' | 'typescript' | 'unknown';
  code: string;
}

const LANG: Record<string, CodeBlock['language']> = {
  python: 'python', py: 'python', python3: 'python',
  javascript: 'javascript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', node: 'javascript',
  typescript: 'typescript', ts: 'typescript', tsx: 'typescript',
};

/** Fenced code blocks of an output, or the whole output when it has none. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks = [...text.matchAll(/```([\w+-]*)[^\n]*\n([\s\S]*?)```/g)].map((m) => ({
    language: LANG[m[1].toLowerCase()] ?? (m[1] ? null : 'unknown'),
    code: m[2],
  }));
  const known = blocks.filter((b): b is CodeBlock => b.language !== null);
  if (blocks.length > 0) return known;
  return [{ language: 'unknown', code: text }];
}

/** A guess for unlabelled code: Python tells itself by `def x(...):`, `import x` lines and colons ending blocks. */
export function guessLanguage(code: string): 'python' | 'typescript' {
  const py = (code.match(/^\s*(def \w+\(.*\)\s*(->.*)?:|class \w+(\(.*\))?:|from [\w.]+ import |import [\w.]+(\s+as \w+)?\s*$|elif |print\()/gm) ?? []).length;
  const js = (code.match(/(\bfunction\b|=>|\bconst |\blet |;\s*$|\{\s*$|\bconsole\.)/gm) ?? []).length;
  return py >= js && py > 0 ? 'python' : js > 0 ? 'typescript' : 'python';
}
