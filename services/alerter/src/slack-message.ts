import type { AlertPayload } from '../../../shared/engines/alerts/index.ts';

/** Escapes the three characters Slack's mrkdwn treats as markup. */
function mrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface SlackMessage {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

/** A Slack incoming-webhook message with the payload's facts: the summary as text, a section with fields, the failing units. */
export function slackMessage(payload: AlertPayload, unitLink?: (unitId: string) => string): SlackMessage {
  const level = payload.level !== undefined ? ` (${payload.level})` : '';
  const title = payload.state === 'firing' ? `:rotating_light: *Firing${level}: ${mrkdwn(payload.rule)}*` : `:white_check_mark: *Resolved: ${mrkdwn(payload.rule)}*`;
  const field = (name: string, value: string) => ({ type: 'mrkdwn', text: `*${name}*\n${mrkdwn(value)}` });
  const fields = [
    field('Check', payload.check ?? (payload.kind === 'judge_health' ? 'all judge checks' : '–')),
    field('Kind', payload.kind),
    field('Value', payload.value === null ? 'no data' : String(Number(payload.value.toPrecision(4)))),
    field('Window', payload.window),
    field('Fired at', payload.fired_at),
  ];
  if (payload.level !== undefined) fields.push(field('Level', payload.level));
  if (payload.threshold !== undefined) fields.push(field('Threshold', String(payload.threshold)));
  if (payload.p_value !== undefined) fields.push(field('p-value', payload.p_value < 0.001 ? '< 0.001' : payload.p_value.toFixed(3)));
  if (payload.problem) fields.push(field('Units with the problem', String(payload.problem.count)), field('Problem state', payload.problem.state));
  if (payload.candidate && payload.baseline) fields.push(field('n (candidate vs baseline)', `${payload.candidate.n} vs ${payload.baseline.n}`));
  const blocks: Array<Record<string, unknown>> = [{ type: 'section', text: { type: 'mrkdwn', text: `${title}\n${mrkdwn(payload.summary)}` }, fields }];
  if (payload.units.length > 0) {
    const units = payload.units.map((u) => (unitLink ? `<${unitLink(u)}|${mrkdwn(u)}>` : `\`${mrkdwn(u)}\``)).join(', ');
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `${payload.problem ? 'Its units' : 'Failing units'}: ${units}` }] });
  }
  return { text: payload.summary, blocks };
}
