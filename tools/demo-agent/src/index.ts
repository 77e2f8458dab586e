export { DEMO_AGENT_NAME, DEMO_AGENT_VERSION, DEMO_QUESTIONS, runDemo } from './run-demo.ts';
export type { DemoResult, RunDemoOptions } from './run-demo.ts';
export { DEMO_CHECKS, formatScoreTable, waitForDemoScores } from './demo-scores.ts';
export type { DemoScenario, DemoScore, DemoScoreResult, WaitForDemoScoresOptions } from './demo-scores.ts';
export { MAX_TURNS, SYSTEM_PROMPT } from './conversation.ts';
export { TOOL_DEFINITIONS } from './tools.ts';
