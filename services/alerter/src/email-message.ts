import { recipients, type AlertPayload, type EmailTarget } from '../../../shared/engines/alerts/index.ts';
import type { AttemptResult } from './notify.ts';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

/** Sends one message through the operator's SMTP server; throws on refusal (with `responseCode` when the server answered). */
export type SendMail = (message: MailMessage, signal: AbortSignal) => Promise<void>;

/** Control characters (a newline above all) could end a header: rule names are the user's text. */
function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A rule's name as the subject may carry it: quoted, at most 60 characters, everything outside
 * printable ASCII escaped. The name is any project admin's text, and a subject is what a recipient
 * trusts at a glance (no look-alike letters, no right-to-left override, no message of its own).
 */
export function subjectName(name: string): string {
  const clipped = [...name].length > 60 ? `${[...name].slice(0, 59).join('')}...` : name;
  return JSON.stringify(clipped).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One plain-text message per notification: what fired, its figures, and the failing units. */
export function emailMessage(target: EmailTarget, payload: AlertPayload, unitLink?: (unitId: string) => string): MailMessage {
  const state = payload.state === 'firing' ? 'Firing' : 'Resolved';
  const lines = [oneLine(payload.summary, 2_000), '', `Rule: ${oneLine(payload.rule, 200)}`, `Kind: ${payload.kind}`];
  // No-data and metric rules watch units, not a check.
  if (payload.check !== null || payload.kind === 'judge_health') lines.push(`Check: ${oneLine(payload.check ?? 'all judge checks', 200)}`);
  lines.push(`Value: ${payload.value === null ? 'no data' : String(Number(payload.value.toPrecision(4)))}`);
  if (payload.level !== undefined) lines.push(`Level: ${payload.level}`);
  if (payload.threshold !== undefined) lines.push(`Threshold: ${payload.threshold}`);
  if (payload.p_value !== undefined) lines.push(`p-value: ${payload.p_value < 0.001 ? '< 0.001' : payload.p_value.toFixed(3)}`);
  if (payload.problem) lines.push(`Problem: ${oneLine(payload.problem.title, 200)} (${payload.problem.id}), ${payload.problem.state}, ${payload.problem.count} units`);
  lines.push(`Window: ${payload.window}`, `Fired at: ${payload.fired_at}`);
  if (payload.units.length > 0) lines.push('', payload.problem ? 'Its units:' : 'Failing units:', ...payload.units.map((u) => `  ${unitLink ? unitLink(u) : u}`));
  return { to: recipients(target), subject: `[tracecheck] ${state}${payload.level ? ` (${payload.level})` : ''}: rule ${subjectName(payload.rule)}`, text: `${lines.join('\n')}\n` };
}

/**
 * SMTP's 5xx replies are permanent (bad recipient, authentication refused, message refused);
 * 4xx replies and failures to connect or to finish TLS may pass, so they are retried.
 */
export function classifyMailError(err: unknown): AttemptResult {
  const e = err as { responseCode?: unknown; message?: unknown; code?: unknown };
  const code = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const message = typeof e.message === 'string' ? oneLine(e.message, 500) : String(err);
  const error = code !== undefined ? `SMTP ${code}: ${message}` : message;
  if (code !== undefined && code >= 500) return { kind: 'permanent', status: code, error };
  if (e.code === 'EAUTH') return { kind: 'permanent', ...(code !== undefined ? { status: code } : {}), error };
  return { kind: 'retry', ...(code !== undefined ? { status: code } : {}), error };
}
