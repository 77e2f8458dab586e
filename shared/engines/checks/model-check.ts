import type { CheckContext, CheckInput, CheckOutcome, RunnableCheck } from './contract.ts';
import type { ModelCheckDefinition } from './definition.ts';
import { CheckDefinitionError, definitionVersion, effectiveRange, validateCommon } from './definition.ts';
import { weightedScore } from './g-eval.ts';
import { AUDIO_SYSTEM_NOTE, judgeAudioPlan } from './judge-audio.ts';
import { buildJudgePrompt, newNonce } from './judge-prompt.ts';
import { parseJudgeAnswer } from './judge-answer.ts';
import { describeError, errorOutcome, notRun, valueOutcome } from './outcome.ts';
import { isMissing, judgedTemplate, TEMPLATE_VARIABLES, templateFields } from './template.ts';

function modelCheckProblems(def: ModelCheckDefinition): string[] {
  const problems = [...validateCommon(def)];
  for (const r of def.requires ?? []) if (!(r in TEMPLATE_VARIABLES)) problems.push(`requires names an unknown variable "${r}"`);
  if (def.scoring !== undefined && (def.scoring !== 'g_eval' || def.outputType !== 'score')) problems.push('scoring must be "g_eval", on a score check');
  return problems;
}

export interface ModelCheckOptions {
  /** The definition's score is a whole number: a judge's fraction is an error, never rounded. */
  integer?: boolean;
}

const fmt = (n: number): string => String(Math.round(n * 1000) / 1000);
const withNote = (explanation: string, note: string): string => (explanation ? `${explanation} ${note}` : note);

/**
 * Asks the judge with a rubric, returns its `[[value]]`. A template with no template variable gets
 * the row's data after it (judgedTemplate); an unknown `{name}` stays in the rubric as written.
 */
export function createModelCheck(def: ModelCheckDefinition, options: ModelCheckOptions = {}): RunnableCheck {
  const problems = modelCheckProblems(def);
  if (problems.length > 0) throw new CheckDefinitionError(problems);
  const template = judgedTemplate(def.promptTemplate);
  const fields = templateFields(template);
  const required = (def.requires ?? []).map((r) => TEMPLATE_VARIABLES[r]);
  const range = effectiveRange(def);
  const gEval = def.scoring === 'g_eval';
  return {
    name: def.name,
    version: definitionVersion(def),
    kind: 'model',
    outputType: def.outputType,
    description: def.description,
    ...(def.outputType === 'score' ? { range } : {}),
    ...(def.threshold !== undefined ? { threshold: def.threshold } : {}),
    async run(input: CheckInput, ctx: CheckContext): Promise<CheckOutcome> {
      const missing = required.filter((f) => isMissing(input[f]));
      if (missing.length > 0) return notRun('model', `needs ${missing.join(', ')}, which this unit does not carry`);
      if (fields.every((f) => isMissing(input[f]))) return notRun('model', `none of ${fields.join(', ')} is present on this unit`);
      if (!ctx.judge) return notRun('model', ctx.judgeUnavailableReason ?? 'no judge configured');
      const audio = judgeAudioPlan(fields, input);
      const nonce = newNonce();
      const prompt = buildJudgePrompt(template, input, { nonce, ...(audio ? { extraBlocks: [{ name: 'audio_recordings', value: audio.listing }] } : {}) });
      const heard = audio !== null && audio.parts.length > 0;
      let response;
      try {
        response = await ctx.judge.complete({
          system: heard ? `${prompt.system}\n${AUDIO_SYSTEM_NOTE}` : prompt.system,
          user: prompt.user,
          ...(heard ? { audio: { parts: audio.parts, textOnly: { system: prompt.system, user: buildJudgePrompt(template, input, { nonce, extraBlocks: [{ name: 'audio_recordings', value: audio.refusedListing }] }).user } } } : {}),
          temperature: 0,
          maxTokens: 400,
          ...(def.model ? { model: def.model } : {}),
          ...(gEval ? { tokenProbabilities: true } : {}),
        });
      } catch (err) {
        return errorOutcome('model', `judge call failed: ${describeError(err)}`);
      }
      const usage = { judgeModel: response.model, inputTokens: response.inputTokens, outputTokens: response.outputTokens };
      const parsed = parseJudgeAnswer(response.text, def.outputType, range);
      if (!parsed.ok) return { ...errorOutcome('model', parsed.error), ...usage };
      const answer = response.audioNotHeard ? { ...parsed, explanation: withNote(parsed.explanation, `[the audio was not heard: ${response.audioNotHeard}; judged on the text]`) } : parsed;
      if (options.integer && !Number.isInteger(answer.value)) {
        return { ...errorOutcome('model', `the score is a whole number from ${range[0]} to ${range[1]}; the judge answered ${answer.value}`, answer.explanation), ...usage };
      }
      if (!gEval) return { ...valueOutcome(def, answer.value, 'model', answer.explanation), ...usage };
      const weighted = response.tokens && answer.at !== undefined ? weightedScore(response.text, answer.at, response.tokens, range) : null;
      if (!weighted) {
        return { ...valueOutcome(def, answer.value, 'model', withNote(answer.explanation, `[the judge gave no token probabilities for its score: its written ${answer.value}]`)), ...usage };
      }
      const how = weighted.weights.map((w) => `${w.score} (p ${fmt(w.p)})`).join(', ');
      return { ...valueOutcome(def, weighted.value, 'model', withNote(answer.explanation, `[G-Eval: ${how} → ${fmt(weighted.value)}; written ${answer.value}]`)), ...usage };
    },
  };
}
