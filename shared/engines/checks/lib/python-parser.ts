import { createRequire } from 'node:module';
import type { Parser as ParserType, Tree } from 'web-tree-sitter';

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

function pythonParser(): Promise<ParserType> {
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

