import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from './logger.js';
import type { MailKind, Metrics } from './metrics.js';

/** Outgoing mail through nodemailer over SMTP, each with a plain-text and an HTML part. */
export interface Mail {
  /** what the mail is for: the label of wcs_mails_sent_total / wcs_mails_failed_total */
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailerSettings {
  smtp?: { host: string; port: number; secure: boolean; user?: string; pass?: string };
  mailFrom: string;
}

/**
 * Sends mail over SMTP; without SMTP settings the mail is written to the log instead.
 * The transport is created on first use.
 */
export class Mailer {
  private transport: Transporter | undefined;

  constructor(
    private readonly settings: MailerSettings,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  private transporter(): Transporter | undefined {
    const smtp = this.settings.smtp;
    if (!smtp) return undefined;
    this.transport ??= nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.user ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
    return this.transport;
  }

  /**
   * Sends a mail; throws when the SMTP server refuses or cannot be reached. Counted as sent or
   * failed by kind; a mail only logged (no SMTP configured) is neither.
   */
  async send(mail: Mail): Promise<void> {
    const t = this.transporter();
    if (!t) {
      this.logger.info(
        { mail: { to: mail.to, subject: mail.subject, text: mail.text } },
        'mail (no SMTP configured, logged only)',
      );
      return;
    }
    try {
      await t.sendMail({
        from: this.settings.mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      });
    } catch (err) {
      this.metrics.mailFailed(mail.kind);
      throw err;
    }
    this.metrics.mailSent(mail.kind);
  }

  close(): void {
    this.transport?.close();
    this.transport = undefined;
  }
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function verificationMail(frontendUrl: string, to: string, username: string, token: string, code: string): Mail {
  const link = `${frontendUrl}/verify-email?token=${encodeURIComponent(token)}`;
  return {
    kind: 'verification',
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

export function passwordResetMail(frontendUrl: string, to: string, username: string, token: string): Mail {
  const link = `${frontendUrl}/reset-password?token=${encodeURIComponent(token)}`;
  return {
    kind: 'password_reset',
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

/** To the previous address after an e-mail change: a stolen session cannot move the account away unnoticed. */
export function emailChangedMail(to: string, username: string, newEmail: string): Mail {
  const text = [
    `Hi ${username},`,
    '',
    `the e-mail address of your account was changed to ${newEmail}.`,
    '',
    'If you did not do this, reset your password at once and contact the organisers.',
  ].join('\n');
  return {
    kind: 'email_changed',
    to,
    subject: 'Your e-mail address was changed',
    text,
    html: `<p>Hi ${escapeHtml(username)},</p>
<p>the e-mail address of your account was changed to ${escapeHtml(newEmail)}.</p>
<p>If you did not do this, reset your password at once and contact the organisers.</p>`,
  };
}
