import { readFileSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import type { SendMail } from './email-message.ts';

export interface SmtpOptions {
  /** smtp://[user:password@]host[:port] or smtps://… */
  url: string;
  from: string;
  /** `starttls`: the server must offer STARTTLS and the message goes only over TLS; `none`: plain (a relay on loopback). */
  tls: 'starttls' | 'none';
  /** A PEM file of the CA that signed the server's certificate (a private mail server). */
  caFile: string | null;
}

/** Sends notifications through one SMTP server, one connection per message (alerts are rare). */
export function createSmtpMailer(options: SmtpOptions): SendMail {
  const url = new URL(options.url);
  const implicitTls = url.protocol === 'smtps:';
  const transport = createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : implicitTls ? 465 : 587,
    secure: implicitTls,
    requireTLS: !implicitTls && options.tls === 'starttls',
    ignoreTLS: !implicitTls && options.tls === 'none',
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    ...(options.caFile ? { tls: { ca: readFileSync(options.caFile, 'utf8') } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return async (message, signal) => {
    if (signal.aborted) throw new Error('alerter stopped before delivery');
    await transport.sendMail({ from: options.from, to: message.to, subject: message.subject, text: message.text });
  };
}
