/** What the scripted model decided to say, before it is shaped into an OpenAI response. */
export interface Reply {
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: 'stop' | 'tool_calls' | 'length';
  /** Which rule answered, for logs and tests. */
  mode: 'judge' | 'pairwise' | 'codegen' | 'agent' | 'arithmetic' | 'echo';
}

export function textReply(mode: Reply['mode'], content: string): Reply {
  return { content, toolCalls: [], finishReason: 'stop', mode };
}
