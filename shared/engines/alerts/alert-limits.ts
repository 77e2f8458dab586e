import { formatDuration, parseDuration } from './duration.ts';
import type { AlertRule, AlertRuleInput } from './rule.ts';
import { recipients, type NotifyTarget } from './targets.ts';

// Email goes through the operator's SMTP server, so a project admin must not be able to turn it
// into a mailer for arbitrary addresses: rules and distinct recipients are capped per project, the
// operator can keep recipients to their own domains, and an email reminder comes no more often than
// a floor. Webhook, Slack and PagerDuty targets reach only what the rule's owner points them at.

export interface AlertLimits {
  /** Alert rules one project may have (TRACECHECK_ALERT_MAX_RULES). */
  maxRules: number;
  /** Distinct email recipients over all of one project's rules (TRACECHECK_EMAIL_MAX_RECIPIENTS). */
  maxEmailRecipients: number;
  /** Domains email may go to, a subdomain included (TRACECHECK_EMAIL_ALLOWED_DOMAINS); empty: any. */
  emailDomains: readonly string[];
  /** The shortest `remind_every` of a rule that emails (TRACECHECK_EMAIL_MIN_REMIND_MINUTES). */
  minEmailRemindMs: number;
}

export const DEFAULT_ALERT_LIMITS: AlertLimits = { maxRules: 100, maxEmailRecipients: 20, emailDomains: [], minEmailRemindMs: 15 * 60_000 };

function emailRecipientsOf(rule: Pick<AlertRuleInput, 'notify'>): string[] {
  return (rule.notify ?? []).flatMap((t) => (t.type === 'email' ? recipients(t) : [])).map((a) => a.toLowerCase());
}

/** The address's domain is one of `domains` or under one; any domain when the list is empty. */
export function emailDomainAllowed(address: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return true;
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase().replace(/\.$/, '');
  return domains.some((d) => domain === d || domain.endsWith(`.${d}`));
}

/**
 * What in a rule about to be stored breaks the limits, given the project's other rules (without
 * the one being replaced). Empty when it may be stored.
 */
export function alertLimitProblems(input: AlertRuleInput, others: readonly AlertRule[], limits: AlertLimits, replacing = false): string[] {
  const problems: string[] = [];
  if (!replacing && others.length + 1 > limits.maxRules) problems.push(`a project has at most ${limits.maxRules} alert rules (TRACECHECK_ALERT_MAX_RULES); delete one first`);
  const mine = emailRecipientsOf(input);
  for (const address of mine) {
    if (!emailDomainAllowed(address, limits.emailDomains)) problems.push(`email to ${address} is not allowed: the operator allows only ${limits.emailDomains.join(', ')} (TRACECHECK_EMAIL_ALLOWED_DOMAINS)`);
  }
  const all = new Set([...others.flatMap(emailRecipientsOf), ...mine]);
  if (all.size > limits.maxEmailRecipients) problems.push(`a project's rules email at most ${limits.maxEmailRecipients} distinct addresses (TRACECHECK_EMAIL_MAX_RECIPIENTS); this would make ${all.size}`);
  if (mine.length > 0 && 'remind_every' in input && input.remind_every !== undefined && parseDuration(input.remind_every) < limits.minEmailRemindMs) {
    problems.push(`remind_every of a rule that emails must be at least ${limits.minEmailRemindMs / 60_000} min (TRACECHECK_EMAIL_MIN_REMIND_MINUTES)`);
  }
  return problems;
}

/**
 * The rule as the alerter applies it today: email only to allowed domains (a rule stored before the
 * operator narrowed them keeps its other targets) and email reminders no more often than the floor.
 */
export function ruleWithinLimits<R extends AlertRule>(rule: R, limits: AlertLimits): R {
  let changed = false;
  const notify = rule.notify.flatMap((t): NotifyTarget[] => {
    if (t.type !== 'email') return [t];
    const all = recipients(t);
    const kept = all.filter((a) => emailDomainAllowed(a, limits.emailDomains));
    if (kept.length === all.length) return [t];
    changed = true;
    return kept.length > 0 ? [{ ...t, to: kept }] : [];
  });
  const emails = notify.some((t) => t.type === 'email');
  const tooOften = emails && 'remind_every' in rule && rule.remind_every !== undefined && parseDuration(rule.remind_every) < limits.minEmailRemindMs;
  if (!changed && !tooOften) return rule;
  return { ...rule, notify, ...(tooOften ? { remind_every: formatDuration(limits.minEmailRemindMs) } : {}) };
}
