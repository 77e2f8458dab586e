import { z } from 'zod';
import { AlertEventSchema, DeliverySchema, type AlertEvent, type AlertRule, type Delivery } from '../../../shared/engines/alerts/index.ts';

// What a read key may see of alerting. Webhook and Slack URLs are bearer secrets (whoever has a
// Slack incoming-webhook URL can post to the channel), and a delivery's error text and status
// would make the alerter a port scanner of whatever it can reach: a read key sees the scheme and
// host of a target, and of a delivery only whether it arrived.

/** `https://hooks.slack.com/services/T/B/X` → `https://hooks.slack.com/…`. */
function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '…';
  }
}

/** A PagerDuty integration key lets anyone open incidents on the service: a read key sees its first 4 characters. */
function maskSecret(secret: string): string {
  return `${secret.slice(0, 4)}…`;
}

export function maskRule(rule: AlertRule): AlertRule {
  return {
    ...rule,
    notify: rule.notify.map((t) => (t.type === 'email' ? t : t.type === 'pagerduty' ? { ...t, url: maskUrl(t.url), routing_key: maskSecret(t.routing_key) } : { ...t, url: maskUrl(t.url) })),
  };
}

const DeliveryViewSchema = DeliverySchema.partial({ attempts: true });
type DeliveryView = z.infer<typeof DeliveryViewSchema>;
export const AlertEventViewSchema = AlertEventSchema.extend({ deliveries: z.array(DeliveryViewSchema) });
export type AlertEventView = z.infer<typeof AlertEventViewSchema>;

function maskDelivery(d: Delivery): DeliveryView {
  return { type: d.type, url: d.url.startsWith('mailto:') ? d.url : maskUrl(d.url), outcome: d.outcome, at_ms: d.at_ms };
}

export function maskEvent(e: AlertEvent): AlertEventView {
  return { ...e, deliveries: e.deliveries.map(maskDelivery) };
}
