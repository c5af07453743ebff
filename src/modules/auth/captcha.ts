import type { Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';

/** CAPTCHA on registration (config `captcha`, docs/moderation.md). */
export interface CaptchaSettings {
  /** CAPTCHA_SECRET; unset = off */
  secret?: string;
  /** CAPTCHA_VERIFY_URL: Cloudflare Turnstile's siteverify or any verifier speaking its protocol */
  verifyUrl: string;
  /** one deadline for the connection, the headers and the body */
  timeoutMs: number;
}

/** Answers larger than this are not a siteverify answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Server-side check of a CAPTCHA token with the siteverify protocol: a form-encoded POST of
 * `secret`, `response` and `remoteip`; a 2xx JSON answer with `success: true` passes. A missing
 * or empty token, or any other answer → 400 CAPTCHA_FAILED; a verifier that cannot be reached,
 * answers a non-2xx status or no JSON, or is slower than the deadline → 503 CAPTCHA_UNAVAILABLE.
 * Redirects are not followed (the secret would travel to wherever they point).
 */
export interface CaptchaDeps {
  settings: CaptchaSettings;
  logger: Logger;
}

export class CaptchaVerifier {
  private readonly settings: CaptchaSettings;
  private readonly logger: Logger;

  constructor(deps: CaptchaDeps) {
    ({ settings: this.settings, logger: this.logger } = deps);
  }

  get enabled(): boolean {
    return this.settings.secret !== undefined;
  }

  /** Resolves when the token passes (or the CAPTCHA is off); rejects with CAPTCHA_FAILED / CAPTCHA_UNAVAILABLE. */
  async verify(actor: Actor, { token }: { token: unknown }): Promise<void> {
    const remoteIp = actor.ip;
    const { secret, verifyUrl, timeoutMs } = this.settings;
    if (secret === undefined) return;
    if (typeof token !== 'string' || token.trim() === '') throw new AppError('CAPTCHA_FAILED');
    const form = new URLSearchParams({ secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let answer: unknown;
    try {
      const response = await fetch(verifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      });
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`verifier answered ${response.status}`);
      }
      const text = await response.text();
      if (text.length > MAX_ANSWER_BYTES) throw new Error('verifier answer too large');
      answer = JSON.parse(text);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'CAPTCHA verifier unavailable');
      throw new AppError('CAPTCHA_UNAVAILABLE');
    }
    if ((answer as { success?: unknown } | null)?.success !== true) throw new AppError('CAPTCHA_FAILED');
  }
}
