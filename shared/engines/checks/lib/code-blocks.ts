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
  return looksLikeCode(text) ? [{ language: 'unknown', code: text }] : [];
}

const CODE_LINE = /^\s*(?:(?:def|class|import|from|return|if|elif|else|for|while|try|except|with|const|let|var|function|export|async|await)\b|[\w.[\]]+\s*=[^=]|[\w.]+\(.*\)\s*;?$|[{}()[\]]|#|\/\/)|[:;{]\s*$/;

/** Bare text is code when most of its lines look like code; prose with a colon here and there is not. */
function looksLikeCode(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return false;
  return lines.filter((l) => CODE_LINE.test(l)).length / lines.length >= 0.6;
}

/** A guess for unlabelled code: Python tells itself by `def x(...):`, `import x` lines and colons ending blocks. */
export function guessLanguage(code: string): 'python' | 'typescript' {
  const py = (code.match(/^\s*(def \w+\(.*\)\s*(->.*)?:|class \w+(\(.*\))?:|from [\w.]+ import |import [\w.]+(\s+as \w+)?\s*$|elif |print\()/gm) ?? []).length;
  const js = (code.match(/(\bfunction\b|=>|\bconst |\blet |;\s*$|\{\s*$|\bconsole\.)/gm) ?? []).length;
  return py >= js && py > 0 ? 'python' : js > 0 ? 'typescript' : 'python';
}
