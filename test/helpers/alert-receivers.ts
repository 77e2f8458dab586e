import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

// Real receivers of alert notifications on loopback (issue 26): an HTTP server that checks every
// event against PagerDuty's Events API v2 shape, and the `smtp-server` package requiring STARTTLS
// and a password (user `alerts`, password `s3cret pass`).

/** PagerDuty's documented event shape (developer.pagerduty.com, Events API v2 "Send an Event"): every problem as text. */
function pagerDutyEventProblems(e: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const allowed = new Set(['routing_key', 'event_action', 'dedup_key', 'payload', 'images', 'links', 'client', 'client_url']);
  for (const k of Object.keys(e)) if (!allowed.has(k)) problems.push(`unknown field ${k}`);
  if (typeof e.routing_key !== 'string' || e.routing_key.length !== 32) problems.push('routing_key must be 32 characters');
  if (!['trigger', 'acknowledge', 'resolve'].includes(e.event_action as string)) problems.push('event_action');
  if (e.dedup_key !== undefined && (typeof e.dedup_key !== 'string' || e.dedup_key.length > 255)) problems.push('dedup_key');
  if (e.event_action !== 'trigger') {
    if (typeof e.dedup_key !== 'string') problems.push('dedup_key is required to resolve');
    return problems;
  }
  const p = e.payload as Record<string, unknown> | undefined;
  if (!p) return [...problems, 'payload is required to trigger'];
  if (typeof p.summary !== 'string' || p.summary.length === 0 || p.summary.length > 1024) problems.push('payload.summary');
  if (typeof p.source !== 'string' || p.source.length === 0) problems.push('payload.source');
  if (!['critical', 'error', 'warning', 'info'].includes(p.severity as string)) problems.push('payload.severity');
  if (p.timestamp !== undefined && Number.isNaN(Date.parse(p.timestamp as string))) problems.push('payload.timestamp');
  for (const k of ['component', 'group', 'class']) if (p[k] !== undefined && typeof p[k] !== 'string') problems.push(`payload.${k}`);
  if (p.custom_details !== undefined && (typeof p.custom_details !== 'object' || p.custom_details === null)) problems.push('payload.custom_details');
  if (e.links !== undefined && (!Array.isArray(e.links) || e.links.some((l: { href?: unknown }) => typeof l.href !== 'string'))) problems.push('links');
  return problems;
}

export interface PagerDutyReceiver {
  /** The events endpoint, `http://127.0.0.1:port/v2/enqueue`. */
  url: string;
  /** Accepted events, in arrival order (invalid ones are answered 400 and not kept). */
  events: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startPagerDutyReceiver(): Promise<PagerDutyReceiver> {
  const events: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const problems = req.headers['content-type'] === 'application/json' ? pagerDutyEventProblems(event) : ['content-type'];
      if (problems.length > 0) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'invalid event', message: 'Event object is invalid', errors: problems }));
        return;
      }
      events.push(event);
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: event.dedup_key }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/enqueue`,
    events,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface MailSeen {
  from: string;
  to: string[];
  secure: boolean;
  user: string | undefined;
  raw: string;
}

export interface SmtpReceiver {
  port: number;
  /** The server's self-signed certificate (for the mailer's `caFile`). */
  certFile: string;
  mails: MailSeen[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: MailSeen[] = [];
  const certDir = mkdtempSync(join(tmpdir(), 'tc-smtp-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(certDir, 'key.pem'), '-out', join(certDir, 'cert.pem')], { stdio: 'ignore' });
  const smtp = new SMTPServer({
    key: readFileSync(join(certDir, 'key.pem')),
    cert: readFileSync(join(certDir, 'cert.pem')),
    authMethods: ['PLAIN', 'LOGIN'],
    // Like a real submission server: no password over plain text, no message without a password.
    allowInsecureAuth: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'alerts' && auth.password === 's3cret pass') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    certFile: join(certDir, 'cert.pem'),
    mails,
    async close() {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/** The text of a single-part message, quoted-printable decoded. */
export function mailBodyText(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/=\r?\n/g, '');
  const bytes = Buffer.from(body.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return bytes.toString('utf8').replace(/\r\n/g, '\n');
}

/** A mail's Subject header as a reader sees it: unfolded, its RFC 2047 encoded words decoded. */
export function mailSubject(raw: string): string | undefined {
  const header = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1];
  if (header === undefined) return undefined;
  const unfolded = header.replace(/\r?\n[ \t]/g, ' ');
  return unfolded
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (__, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    );
}
