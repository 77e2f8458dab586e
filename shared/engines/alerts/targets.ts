import { z } from 'zod';

// Where a rule's notifications go. Webhook, Slack and PagerDuty are HTTP requests the alerter
// makes to a URL (checked against the outbound policy before every attempt); email goes through
// the one SMTP server the operator configured (`TRACECHECK_SMTP_URL`), never one a rule names.

/** PagerDuty's Events API v2 endpoint (the EU service is `https://events.eu.pagerduty.com/v2/enqueue`). */
const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

const WebhookTargetSchema = z.object({ type: z.literal('webhook'), url: httpUrl }).strict();
const SlackTargetSchema = z.object({ type: z.literal('slack'), url: httpUrl.meta({ description: 'A Slack incoming-webhook URL.' }) }).strict();

const PagerDutyTargetSchema = z
  .object({
    type: z.literal('pagerduty'),
    routing_key: z
      .string()
      .regex(/^[A-Za-z0-9]{20,64}$/, 'must be the 32-character integration key of a PagerDuty service (Events API v2)')
      .meta({ description: "The Events API v2 integration key of the PagerDuty service (its 'routing key')." }),
    url: httpUrl.default(PAGERDUTY_EVENTS_URL).meta({ description: `Events API endpoint; default ${PAGERDUTY_EVENTS_URL}.` }),
  })
  .strict();

// RFC 5321's practical subset: no display names, quotes or comments, nothing that could end a header line.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const emailAddress = z.string().max(254).regex(EMAIL, 'must be a plain email address, e.g. oncall@example.com');

const EmailTargetSchema = z
  .object({
    type: z.literal('email'),
    to: z.union([emailAddress, z.array(emailAddress).min(1).max(10)]).meta({ description: 'One address or up to 10.' }),
  })
  .strict();

export const NotifyTargetSchema = z.discriminatedUnion('type', [WebhookTargetSchema, SlackTargetSchema, PagerDutyTargetSchema, EmailTargetSchema]);
export type NotifyTarget = z.infer<typeof NotifyTargetSchema>;
export type HttpTarget = Exclude<NotifyTarget, { type: 'email' }>;
export type EmailTarget = Extract<NotifyTarget, { type: 'email' }>;
export type PagerDutyTarget = Extract<NotifyTarget, { type: 'pagerduty' }>;

export function recipients(target: EmailTarget): string[] {
  return typeof target.to === 'string' ? [target.to] : target.to;
}

/** Where a target delivers, as the history records it: its URL, or `mailto:` its recipients. */
export function targetAddress(target: NotifyTarget): string {
  return target.type === 'email' ? `mailto:${recipients(target).join(',')}` : target.url;
}
