import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { testContainer, useTestContainer } from './container';

/**
 * A real SMTP server in the test process that captures every mail (decoded with mailparser).
 * `installSmtpCapture()` builds the file's container with SMTP pointing at it.
 */
export interface CapturedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: ParsedMail;
}

export interface SmtpCapture {
  port: number;
  mails: CapturedMail[];
  /** the next mail to `to` (already received or arriving within timeoutMs) */
  mailTo(to: string, timeoutMs?: number): Promise<CapturedMail>;
  /** while down, every mail is refused with 421 (a temporary failure); `refused` counts them */
  setDown(down: boolean): void;
  /** each mail's acceptance is held back this long (a slow SMTP server: the mail stays in flight) */
  setDelay(ms: number): void;
  refused: number;
  /** mails whose transfer (DATA) has started, held back by setDelay or not */
  receiving: number;
  close(): Promise<void>;
}

export async function startSmtpCapture(): Promise<SmtpCapture> {
  const mails: CapturedMail[] = [];
  const consumed = new Set<CapturedMail>();
  const waiters: Array<() => void> = [];
  const state = { down: false, refused: 0, delayMs: 0, receiving: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      if (!state.down) return callback();
      state.refused++;
      for (const w of waiters.splice(0)) w();
      callback(Object.assign(new Error('Service not available, try again later'), { responseCode: 421 }));
    },
    onData(stream, _session, callback) {
      state.receiving++;
      simpleParser(stream)
        .then(async (parsed) => {
          if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
          const toField = Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : [];
          mails.push({
            to: toField.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase())),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            raw: parsed,
          });
          for (const w of waiters.splice(0)) w();
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  const take = (to: string) => {
    const mail = mails.find((m) => !consumed.has(m) && m.to.includes(to.toLowerCase()));
    if (mail) consumed.add(mail);
    return mail;
  };

  return {
    port,
    mails,
    setDown: (down) => void (state.down = down),
    setDelay: (ms) => void (state.delayMs = ms),
    get refused() {
      return state.refused;
    },
    get receiving() {
      return state.receiving;
    },
    mailTo(to, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          const mail = take(to);
          if (mail) {
            clearTimeout(deadline);
            resolve(mail);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * For a whole test file (or describe block): starts a capture server before the tests and
 * rebuilds the shared container with SMTP pointing at it and its mail worker running (as
 * src/server.ts does); stops both afterwards.
 * `onReady` receives the capture.
 */
export function installSmtpCapture(onReady: (capture: SmtpCapture) => void): void {
  let capture: SmtpCapture;
  beforeAll(async () => {
    capture = await startSmtpCapture();
    onReady(capture);
  });
  useTestContainer(() => ({ smtp: captureSmtp(capture) }));
  beforeAll(async () => {
    await testContainer().mailQueue.startWorker();
  });
  afterAll(async () => {
    await capture.close();
  });
}

/** SMTP settings that deliver to the capture server. */
export function captureSmtp(capture: { port: number }) {
  return { host: '127.0.0.1', port: capture.port, secure: false, user: undefined, pass: undefined };
}

export function tokenFromLink(text: string, path: string): string {
  const match = new RegExp(`${path.replace(/[/?]/g, '\\$&')}\\?token=([A-Za-z0-9_\\-%]+)`).exec(text);
  if (!match) throw new Error(`no ${path} link in mail:\n${text}`);
  return decodeURIComponent(match[1]);
}

export function codeFromMail(text: string): string {
  const match = /code[^\d]*(\d{6})/i.exec(text);
  if (!match) throw new Error(`no 6-digit code in mail:\n${text}`);
  return match[1];
}
