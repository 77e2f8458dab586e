// A prompt module: runs in its own process, receives the reference's variables and the prompt's
// parameters, and returns {output, messages?}. Here: (a + b), then (that + c), in two model calls.
import OpenAI from 'openai';

interface ModuleArgs {
  input: Record<string, unknown>;
  model: string;
  base_url: string | null;
  api_key: string | null;
}

export default async function run(args: ModuleArgs): Promise<{ output: string; messages: Array<{ role: 'user' | 'assistant'; content: string }> }> {
  const client = new OpenAI({ baseURL: args.base_url ?? undefined, apiKey: args.api_key ?? 'not-needed' });
  const ask = async (question: string): Promise<string> => {
    const res = await client.chat.completions.create({ model: args.model, temperature: 0, messages: [{ role: 'user', content: question }] });
    return (res.choices[0]?.message.content ?? '').trim();
  };
  const q1 = `What is ${String(args.input.a)} + ${String(args.input.b)}?`;
  const first = await ask(q1);
  const q2 = `What is ${first} + ${String(args.input.c)}?`;
  const second = await ask(q2);
  return {
    output: second,
    messages: [
      { role: 'user', content: q1 },
      { role: 'assistant', content: first },
      { role: 'user', content: q2 },
      { role: 'assistant', content: second },
    ],
  };
}
