export { createAlerter } from './create-alerter.ts';
export type { Alerter,  } from './create-alerter.ts';
export { createSmtpMailer } from './smtp-mailer.ts';
export { createProblemMiner } from './problems/problem-miner.ts';
;
