export { createOpenAiJudgeClient } from './openai-judge-client.ts';
export type { OpenAiJudgeClientOptions } from './openai-judge-client.ts';
