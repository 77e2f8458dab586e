import { builtinEntry } from '../builtin-check.ts';
import { codeBlocks, guessLanguage } from '../lib/code-blocks.ts';
import { parsePython, syntaxErrors } from '../lib/python-parser.ts';
import { typescriptSyntaxErrors } from '../lib/typescript-syntax.ts';
import { notRun, passFail } from '../outcome.ts';

/** Passes when every code block of the output parses: Python with tree-sitter-python, JS/TS with the TypeScript parser. */
export const doesCodeCompile = builtinEntry(
  {
    kind: 'builtin',
    name: 'does_code_compile',
    description:
      'Passes when the code in the output parses without syntax errors: each fenced block in its labelled language (python, javascript, typescript), an unlabelled block or a bare output by a guess. Python is parsed with tree-sitter-python (web-tree-sitter), JavaScript/TypeScript with the TypeScript parser (syntax only, no type checking).',
    outputType: 'pass_fail',
    implementationVersion: '1',
  },
  ['model_output'],
  async (input) => {
    if (!input.model_output?.trim()) return notRun('deterministic', 'the unit has no final output (model_output)');
    const blocks = codeBlocks(input.model_output);
    if (blocks.length === 0) return notRun('deterministic', 'the output has no code block in Python, JavaScript or TypeScript');
    const problems: string[] = [];
    const langs: string[] = [];
    for (const [i, b] of blocks.entries()) {
      const lang = b.language === 'unknown' ? guessLanguage(b.code) : b.language;
      langs.push(lang);
      const errors = lang === 'python' ? syntaxErrors((await parsePython(b.code)).rootNode) : typescriptSyntaxErrors(b.code, lang);
      if (errors.length > 0) problems.push(`block ${i + 1} (${lang}): ${errors.join('; ')}`);
    }
    if (problems.length === 0) return passFail(true, 'deterministic', `${blocks.length} code block(s) parse (${langs.join(', ')})`);
    return passFail(false, 'deterministic', `syntax errors: ${problems.join(' | ')}`);
  },
);
