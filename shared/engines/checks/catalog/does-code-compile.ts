import { builtinEntry } from '../builtin-check.ts';
import { errorOutcome, notRun, passFail } from '../outcome.ts';
import { COMPILE_SOURCE } from './code-blocks-compile.ts';

/**
 * As defined: `compile(model_output, '<string>', 'exec')` on the whole output, in the Python
 * sandbox, so prose, fenced Markdown and JavaScript fail. Fenced blocks in their own languages are
 * `code_blocks_compile`.
 */
export const doesCodeCompile = builtinEntry(
  {
    kind: 'builtin',
    name: 'does_code_compile',
    description:
      "Passes when Python's compile(model_output, '<string>', 'exec') succeeds on the whole output (run in the Python sandbox), so natural language, Markdown fences, JavaScript, an IndentationError or Python 2's `print 'x'` fail. To compile the fenced blocks of an answer in their own languages, use code_blocks_compile.",
    outputType: 'pass_fail',
    implementationVersion: '3',
  },
  ['model_output'],
  async (input, ctx) => {
    if (input.model_output === null) return notRun('deterministic', 'the unit has no final output (model_output)');
    if (!ctx.codeRunner) return notRun('deterministic', 'needs the Python sandbox to run compile(), and none is configured');
    const res = await ctx.codeRunner.evaluate({ language: 'python', source: COMPILE_SOURCE, args: { blocks: [input.model_output] }, ...(ctx.project !== undefined ? { project: ctx.project } : {}) });
    if (!res.ok) return errorOutcome('deterministic', `the Python sandbox failed: ${res.error}`);
    if (!Array.isArray(res.value) || res.value.length !== 1) return errorOutcome('deterministic', 'the Python sandbox answered in an unexpected shape');
    const problem = String(res.value[0]);
    return problem === '' ? passFail(true, 'deterministic', 'the output compiles as Python') : passFail(false, 'deterministic', `does not compile: ${problem}`);
  },
  { usesCodeRunner: true },
);
