import { createRequire } from 'node:module';
import type { Node, Parser as ParserType, Tree } from 'web-tree-sitter';

// The grammar is a .wasm shipped in the tree-sitter-python npm package; it is loaded once per
// process, on first use, so checks that never parse Python pay nothing.
let parserPromise: Promise<ParserType> | null = null;

async function loadParser(): Promise<ParserType> {
  const { Parser, Language } = await import('web-tree-sitter');
  await Parser.init();
  const wasm = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
  const language = await Language.load(wasm);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

export function pythonParser(): Promise<ParserType> {
  parserPromise ??= loadParser().catch((err: unknown) => {
    parserPromise = null;
    throw err;
  });
  return parserPromise;
}

export async function parsePython(code: string): Promise<Tree> {
  const tree = (await pythonParser()).parse(code);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}

/** Syntax errors as "line N: …", from ERROR and MISSING nodes. */
export function syntaxErrors(root: Node, max = 5): string[] {
  const out: string[] = [];
  const visit = (n: Node): void => {
    if (out.length >= max) return;
    if (n.isError || n.isMissing) {
      out.push(`line ${n.startPosition.row + 1}: ${n.isMissing ? `missing ${n.type}` : `unexpected ${JSON.stringify(n.text.slice(0, 30))}`}`);
      return;
    }
    if (n.hasError) for (const c of n.children) if (c) visit(c);
  };
  visit(root);
  return out;
}
