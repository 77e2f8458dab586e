import { toText } from '../expression/index.ts';
import { EvalConfigError } from '../eval-error.ts';
import type { GenerationRequest, Generator } from '../generation.ts';
import { loadPrompt } from '../load-prompt.ts';
import type { PromptSuite } from '../suite-types.ts';
import { castVariables, renderTemplate } from '../template.ts';
import type { AlignedPair } from './outputs-file.ts';

function render(p: PromptSuite, vars: Record<string, unknown>): ReturnType<typeof renderTemplate>[] | null {
  return p.source.messages ? p.source.messages.map((m) => renderTemplate(m.template, vars)) : null;
}

function sourceFields(p: PromptSuite): Pick<GenerationRequest, 'kind' | 'code' | 'modulePath'> {
  if (p.source.kind === 'module') return { kind: 'module', modulePath: p.source.path };
  if (p.source.kind === 'python') return { kind: 'python', code: p.source.code };
  return { kind: 'chat' };
}

/**
 * Runs two prompt files over the references of the first (ids must exist in the second when it has
 * its own) and pairs their outputs: chat prompts, modules and llmeval's prompt `code:` (in the
 * generator's Python). Sweeps are ignored: a comparison is between two variants. A generation that
 * fails stops the comparison with one line naming the prompt file and the reference.
 */
export async function generatePairs(pathA: string, pathB: string, generator: Generator, timeoutMs: number): Promise<AlignedPair[]> {
  const a = loadPrompt(pathA, new Map(), new Map(), 1);
  const b = loadPrompt(pathB, new Map(), new Map(), 1);
  const bIds = new Set(b.references.map((r) => r.id));
  const missing = a.references.find((r) => !bIds.has(r.id));
  if (missing) throw new EvalConfigError(`reference ${missing.id} of ${a.file} is not among the references of ${b.file}`, missing.place.file, missing.place.line);
  const ask = async (p: PromptSuite, vars: Record<string, unknown>, refId: string): Promise<string> => {
    const given = p.source.kind === 'module' ? vars : castVariables(vars);
    const rendered = render(p, given);
    const messages = p.source.messages && rendered ? p.source.messages.map((m, i) => ({ role: m.role, content: rendered[i] })) : null;
    try {
      const gen = await generator.generate({ ...sourceFields(p), params: p.params, messages, variables: given, tryIndex: 0, baseUrl: p.baseUrl, apiKey: p.apiKey, timeoutMs });
      return gen.output;
    } catch (err) {
      if (err instanceof EvalConfigError) throw err;
      const message = (err instanceof Error ? err.message : String(err)).trim().split('\n')[0];
      throw new EvalConfigError(`reference ${refId}: ${message}`, p.place.file, p.place.line);
    }
  };
  return Promise.all(
    a.references.map(async (ref) => {
      const vars = { ...a.variables, ...ref.input };
      const [outA, outB] = await Promise.all([ask(a, vars, ref.id), ask(b, { ...b.variables, ...ref.input }, ref.id)]);
      const userText = render(a, a.source.kind === 'module' ? vars : castVariables(vars))?.at(-1) ?? toText(ref.input);
      return { id: ref.id, input: userText, reference: ref.hasExpected ? toText(ref.expected) : null, a: outA, b: outB };
    }),
  );
}
