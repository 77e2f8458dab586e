import type { ChatMessage, ScoreMethod, ToolDefinition, UnitToolCall } from '../../contracts/schemas/index.ts';

/**
 * The judge as the check engine sees it: one chat completion. Implementations (the `openai`
 * client, a test double) live outside shared/engines/checks so the engine stays pure.
 * Throws on failure; the engine turns a throw into an error outcome.
 */
export interface JudgeClient {
  complete(request: JudgeRequest): Promise<JudgeResponse>;
}

export interface JudgeRequest {
  system: string;
  user: string;
  /** Overrides the client's default model. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  /** Aborts the call (a deadline or a timeout of the caller). */
  signal?: AbortSignal;
  /**
   * Whose turn the call takes (the unit's project): waiting calls get the judge's slots and rate
   * round robin between shares, so one project's backlog never holds another's call behind it all.
   */
  share?: string;
  /** Asks for each answer token's likeliest alternatives (G-Eval weights a score by them). */
  tokenProbabilities?: boolean;
  /**
   * Recordings sent beside the text as `input_audio` parts (judge-audio.ts), and the request to send
   * instead when the model refuses audio (400): the same data, its listing saying the audio is not sent.
   */
  audio?: { parts: JudgeAudio[]; textOnly: { system: string; user: string } };
}

/** One recording for a multimodal judge: base64 audio in a format the chat API accepts. */
export interface JudgeAudio {
  data: string;
  format: 'wav' | 'mp3';
}

/** One token of the answer with its likeliest alternatives (itself among them), as log-probabilities. */
export interface JudgeToken {
  token: string;
  top: { token: string; logprob: number }[];
}

export interface JudgeResponse {
  text: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Answered from the cache of identical requests: no call was made, nothing was spent. */
  cached?: boolean;
  /** The answer's tokens, when `tokenProbabilities` was asked and the provider gives them. */
  tokens?: JudgeToken[];
  /** Why the request's audio was not heard (the model refused it and was asked with the text only). */
  audioNotHeard?: string;
}

/** What a check reads: the template variables users know, derived from a unit or an eval record. */
export interface CheckInput {
  id: string;
  model_output: string | null;
  scenario_input: string | null;
  scenario_result: string | null;
  model_input: ChatMessage[];
  message_history: ChatMessage[];
  tool_calls: UnitToolCall[];
  tools: ToolDefinition[];
  simulation_message_history: ChatMessage[] | null;
  audio_messages: unknown[] | null;
  audio_output: unknown;
}

export interface CheckContext {
  /** Null when no judge is configured: model checks then answer `not_run` with the reason. */
  judge: JudgeClient | null;
  /** Why the judge is null, reported on `not_run` outcomes. */
  judgeUnavailableReason?: string;
  nowMs(): number;
  /** Other rows of the same batch or window, for checks that compare rows (uniqueness). */
  batch?: readonly CheckInput[];
  /** Runs user code checks in isolation (shared/engines/code-sandbox); absent → code checks answer `not_run`. */
  codeRunner?: CodeRunner;
  /** The project whose unit or request this is: its code checks run in that project's sandbox processes only. */
  project?: string;
}

/**
 * Runs a user's code check module in isolation. Implemented in shared/engines/code-sandbox (a separate
 * process); the engine only sees this interface. Never throws: failures come back as `ok: false`.
 */
export interface CodeRunner {
  evaluate(request: CodeRunRequest): Promise<CodeRunResult>;
  /**
   * Syntax errors of JavaScript/TypeScript text from a trace (hostile: a parser can be made to
   * overflow its stack or take minutes), parsed off the caller's thread with a time and size budget.
   * Absent → checks that need it answer `not_run`.
   */
  syntaxErrors?(request: SyntaxCheckRequest): Promise<SyntaxCheckResult>;
}

export interface SyntaxCheckRequest {
  code: string;
  language: 'javascript' | 'typescript';
}

/** `errors`: at most five, each `line N: message`; none when the text parses. */
export type SyntaxCheckResult = { ok: true; errors: string[] } | { ok: false; error: string };

export interface CodeRunRequest {
  /** The source: a TypeScript or JavaScript module exporting `evaluate(args)`, or a Python check file. */
  source: string;
  language: CodeLanguage;
  /** JSON-serializable arguments, the template variables by name. */
  args: Record<string, unknown>;
  timeoutMs?: number;
  /**
   * The project the check belongs to (default `default`): a sandbox process runs one project's code
   * only, and a check's pause after repeated failures holds in its project only.
   */
  project?: string;
}

export type CodeRunResult = { ok: true; value: unknown } | { ok: false; error: string };

interface OutcomeCommon {
  method: ScoreMethod;
  /** Set by the code tier on a case it settles with certainty, so `hybrid` asks no judge; never leaves runInMode. */
  settled?: boolean;
  judgeModel?: string;
  inputTokens?: number;
  outputTokens?: number;
}

/** A check's verdict. Never thrown: a check that throws becomes `{ status: 'error' }`. */
export type CheckOutcome =
  | (OutcomeCommon & { status: 'ok'; value: number; passed: boolean | null; explanation: string })
  | (OutcomeCommon & { status: 'error' | 'not_run'; error: string; explanation?: string });

export type CheckKind = 'model' | 'code' | 'builtin';
/** Python runs in Pyodide (shared/engines/code-sandbox/python-sandbox), the others in a V8 context (shared/engines/code-sandbox). */
export type CodeLanguage = 'typescript' | 'javascript' | 'python';
export type OutputType = 'pass_fail' | 'score';

/** A check ready to run: its definition plus the code that runs it. */
export interface RunnableCheck {
  name: string;
  /** Hash of the definition; scores keep the version they were made with. */
  version: string;
  kind: CheckKind;
  outputType: OutputType;
  description: string;
  /** For `score` checks: the range values fall in. */
  range?: readonly [number, number];
  /** A score passes at or above it. */
  threshold?: number;
  /** Runs code through `ctx.codeRunner` (code checks; builtins such as does_code_compile): callers provide a sandbox. */
  usesCodeRunner?: boolean;
  /**
   * Compares the row with the other rows scored with it (uniqueness): callers hand it `ctx.batch`,
   * the eval run's outputs of the same prompt or the scorer's window of the agent's recent outputs.
   */
  comparesRows?: boolean;
  run(input: CheckInput, ctx: CheckContext): Promise<CheckOutcome>;
}

;
