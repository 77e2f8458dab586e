import { builtinEntry } from '../builtin-check.ts';
import { errorOutcome, notRun, passFail } from '../outcome.ts';

// Python's own compile(), run in the Python sandbox: tree-sitter accepts an IndentationError and
// Python 2's `print 'x'`, CPython does not.
export const COMPILE_SOURCE = `def evaluate(blocks):
    problems = []
    for code in blocks:
        try:
            compile(code, '<string>', 'exec')
            problems.append('')
        except SyntaxError as err:
            problems.append(f'{type(err).__name__}: {err.msg} (line {err.lineno})')
    return problems
`;

const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)```/g;
const TS_LANGS: Record<string, 'javascript' | 'typescript'> = { javascript: 'javascript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', typescript: 'typescript', ts: 'typescript', tsx: 'typescript' };

interface Block {
  language: 'python' | 'javascript' | 'typescript';
  code: string;
}

/**
 * What is compiled: each fenced block (labelled JavaScript/TypeScript ones with the TypeScript
 * parser, the rest with Python), or, without fences, the whole output as Python, so prose and HTML
 * fail as they do under compile().
 */
function blocksOf(text: string): Block[] {
  const fenced = [...text.matchAll(FENCE)].map((m): Block => ({ language: TS_LANGS[m[1].toLowerCase()] ?? 'python', code: m[2] }));
  return fenced.length > 0 ? fenced : [{ language: 'python', code: text }];
}

/**
 * Our extension of does_code_compile: each fenced block compiled in its own language (Python with
 * `compile()`, JavaScript/TypeScript with the TypeScript parser), so an answer with prose around
 * its code can pass.
 */
export const codeBlocksCompile = builtinEntry(
  {
    kind: 'builtin',
    name: 'code_blocks_compile',
    description:
      "Our extension of does_code_compile: passes when each fenced code block compiles, Python ones with Python's compile() (in the Python sandbox), blocks labelled JavaScript or TypeScript with the TypeScript parser (syntax only); an output without fences is compiled whole as Python.",
    outputType: 'pass_fail',
    implementationVersion: '1',
  },
  ['model_output'],
  async (input, ctx) => {
    if (input.model_output === null) return notRun('deterministic', 'the unit has no final output (model_output)');
    const blocks = blocksOf(input.model_output);
    const python = blocks.filter((b) => b.language === 'python');
    let pythonProblems: string[] = [];
    if (python.length > 0) {
      if (!ctx.codeRunner) return notRun('deterministic', 'needs the Python sandbox to run compile(), and none is configured');
      const res = await ctx.codeRunner.evaluate({ language: 'python', source: COMPILE_SOURCE, args: { blocks: python.map((b) => b.code) }, ...(ctx.project !== undefined ? { project: ctx.project } : {}) });
      if (!res.ok) return errorOutcome('deterministic', `the Python sandbox failed: ${res.error}`);
      if (!Array.isArray(res.value)) return errorOutcome('deterministic', 'the Python sandbox answered in an unexpected shape');
      pythonProblems = res.value.map(String);
    }
    // The TypeScript parser never runs on trace text in this thread: a block can overflow its stack
    // or take minutes, so it is parsed in the sandbox's parser processes under a budget.
    const scripts = blocks.flatMap((b) => (b.language === 'python' ? [] : [{ code: b.code, language: b.language }]));
    const parse = ctx.codeRunner?.syntaxErrors?.bind(ctx.codeRunner);
    if (scripts.length > 0 && !parse) return notRun('deterministic', 'needs the code sandbox to parse JavaScript/TypeScript blocks, and none is configured');
    const scriptResults = parse ? await Promise.all(scripts.map((s) => parse(s))) : [];
    const problems: string[] = [];
    let p = 0;
    let s = 0;
    for (const [i, b] of blocks.entries()) {
      let found: string;
      if (b.language === 'python') {
        found = pythonProblems[p++];
      } else {
        const res = scriptResults[s++];
        if (!res.ok) return errorOutcome('deterministic', `block ${i + 1} (${b.language}) could not be parsed: ${res.error}`);
        found = res.errors.join('; ');
      }
      if (found) problems.push(`${blocks.length > 1 || b.language !== 'python' ? `block ${i + 1} (${b.language}): ` : ''}${found}`);
    }
    const langs = blocks.map((b) => b.language).join(', ');
    if (problems.length === 0) return passFail(true, 'deterministic', `${blocks.length} code block(s) compile (${langs})`);
    return passFail(false, 'deterministic', `does not compile: ${problems.join(' | ')}`);
  },
  { usesCodeRunner: true },
);
