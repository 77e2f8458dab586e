export {   DEMO_QUESTIONS, runDemo } from './run-demo.ts';
;
export { DEMO_CHECKS, formatScoreTable, waitForDemoScores } from './demo-scores.ts';
;
export {  SYSTEM_PROMPT } from './conversation.ts';
;
