import nodemailer, { type Transporter } from 'nodemailer';
import { config } from '../config/index.js';
import { logger } from './logger.js';

/**
 * Outgoing mail through nodemailer over SMTP (config.smtp), each with a plain-text and an
 * HTML part. Without SMTP settings (development) the mail is written to the log instead.
 * The transport is created lazily from config.smtp at send time and rebuilt when those
 * settings change, so the tests point config.smtp at their capture server.
 */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

let transport: { key: string; transporter: Transporter } | undefined;

function transporter(): Transporter | undefined {
  const smtp = config.smtp;
  if (!smtp) return undefined;
  const key = JSON.stringify(smtp);
  if (transport?.key !== key) {
    transport?.transporter.close();
    transport = {
      key,
      transporter: nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    };
  }
  return transport.transporter;
}

/** Sends a mail; throws when the SMTP server refuses or cannot be reached. */
export async function sendMail(mail: Mail): Promise<void> {
  const t = transporter();
  if (!t) {
    logger.info({ mail: { to: mail.to, subject: mail.subject, text: mail.text } }, 'mail (no SMTP configured, logged only)');
    return;
  }
  await t.sendMail({ from: config.mailFrom, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
}

/**
 * Sends without making the caller wait or fail: an SMTP failure is logged and the user can
 * ask for the mail again (resend / new reset request).
 */
export function sendMailInBackground(mail: Mail, context: Record<string, unknown> = {}): Promise<boolean> {
  return sendMail(mail).then(
    () => true,
    (err: unknown) => {
      logger.error({ err, to: mail.to, subject: mail.subject, ...context }, 'mail could not be sent');
      return false;
    },
  );
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function verificationMail(to: string, username: string, token: string, code: string): Mail {
  const link = `${config.frontendUrl}/verify-email?token=${encodeURIComponent(token)}`;
  return {
    to,
    subject: 'Verify your e-mail address',
    text: [
      `Hi ${username},`,
      '',
      'please confirm your e-mail address by opening this link:',
      link,
      '',
      `Or enter this code in the app: ${code}`,
      '',
      'The link and the code are valid for 24 hours.',
    ].join('\n'),
    html: `<p>Hi ${escapeHtml(username)},</p>
<p>please confirm your e-mail address by opening this link:<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>
<p>Or enter this code in the app: <strong style="font-size:1.4em;letter-spacing:0.2em">${code}</strong></p>
<p>The link and the code are valid for 24 hours.</p>`,
  };
}

export function passwordResetMail(to: string, username: string, token: string): Mail {
  const link = `${config.frontendUrl}/reset-password?token=${encodeURIComponent(token)}`;
  return {
    to,
    subject: 'Reset your password',
    text: [
      `Hi ${username},`,
      '',
      'someone (hopefully you) asked to reset your password. Open this link to choose a new one:',
      link,
      '',
      'The link is valid for 1 hour and can be used once. If you did not ask for this, ignore this mail.',
    ].join('\n'),
    html: `<p>Hi ${escapeHtml(username)},</p>
<p>someone (hopefully you) asked to reset your password. Open this link to choose a new one:<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>
<p>The link is valid for 1 hour and can be used once. If you did not ask for this, ignore this mail.</p>`,
  };
}
