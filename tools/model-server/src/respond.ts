import { agentTurn } from './agent.ts';
import { answerArithmetic } from './arithmetic.ts';
import { generateCode, isCodeGenerationPrompt, isJudgePrompt, isPairwisePrompt, judge, pairwise } from './judge.ts';
import { textReply, type Reply } from './reply.ts';
import type { ChatRequest } from './request.ts';
import { lastUserText, systemText } from './request.ts';

/** A judge answer a test set (POST /control/judge): given to judge prompts whose user message contains `contains`. */
export interface JudgeAnswer {
  contains: string;
  answer: string;
}

/**
 * The scripted model: a pure function of the request (and of the judge answers a test set). Order matters: a judge prompt may contain
 * arithmetic or weather questions inside its data, so the judge modes are decided first.
 */
export function respond(request: ChatRequest, judgeAnswers: readonly JudgeAnswer[] = []): Reply {
  const system = systemText(request);
  const user = lastUserText(request);
  if (isCodeGenerationPrompt(system, user)) return generateCode(system, user);
  if (isPairwisePrompt(system)) return pairwise(user);
  if (isJudgePrompt(system)) {
    const scripted = judgeAnswers.find((a) => user.includes(a.contains));
    return scripted ? textReply('judge', scripted.answer) : judge(system, user);
  }
  const agent = agentTurn(request);
  if (agent) return agent;
  const sum = answerArithmetic(user, request);
  if (sum !== null) return textReply('arithmetic', sum);
  const said = user.replace(/\s+/g, ' ').trim();
  return textReply('echo', said.length > 0 ? `You said: ${said}` : 'Hello! How can I help you today?');
}
