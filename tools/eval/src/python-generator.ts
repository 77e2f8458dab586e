import type { ChatMessage } from '../../../shared/contracts/schemas/index.ts';
import type { Generation, GenerationRequest, Generator } from './generation.ts';
import type { SnippetRunner } from './run-metrics.ts';

const ROLES: Readonly<Record<string, ChatMessage['role']>> = { system: 'system', user: 'user', assistant: 'assistant', human: 'user', ai: 'assistant' };

function toMessages(value: unknown): ChatMessage[] | null {
  if (!Array.isArray(value)) return null;
  return value.map((m: unknown, i) => {
    const role = typeof m === 'object' && m !== null && typeof (m as { role?: unknown }).role === 'string' ? ROLES[(m as { role: string }).role] : undefined;
    const content = (m as { content?: unknown } | null)?.content;
    if (!role || typeof content !== 'string') throw new Error(`prompt code: messages[${i}] must be {role: system|user|assistant|human|ai, content: text}`);
    return { role, content };
  });
}

/**
 * llmeval's custom message code, in the user's Python: `{name}` placeholders filled, the reference's variables and the rendered
 * `messages` are globals; the code sets `output` (the answer, no model call) or `messages` (sent
 * to the model in place of the rendered ones), or both (the transcript and the answer).
 */
export function createPythonGenerator(deps: { snippets: SnippetRunner | null; chat: Generator }): Generator {
  return {
    async generate(req: GenerationRequest): Promise<Generation> {
      if (!deps.snippets) throw new Error('prompt code needs Python, which this run has not');
      const rendered = req.messages ?? [];
      const res = await deps.snippets.runSnippet({
        source: req.code ?? '',
        vars: { ...req.variables, messages: rendered.map((m) => ({ role: m.role, content: m.content })) },
        outputs: ['output', 'messages'],
        substitute: req.variables,
      });
      if (!res.ok) throw new Error(`prompt code failed: ${res.error}`);
      const messages = toMessages(res.values.messages);
      const output = res.values.output;
      if (output !== undefined && output !== null) {
        const text = typeof output === 'string' ? output : JSON.stringify(output);
        return { output: text, messages: [...(messages ?? rendered), { role: 'assistant', content: text }], cached: false };
      }
      if (messages) return deps.chat.generate({ ...req, kind: 'chat', messages });
      throw new Error('prompt code set neither output nor messages');
    },
    close: () => Promise.resolve(),
  };
}
