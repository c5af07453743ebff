import bcrypt from 'bcryptjs';
import { AppError } from './errors.js';

export interface PasswordHasherSettings {
  /** bcrypt cost of new hashes */
  rounds: number;
  /** hashes and comparisons computed at the same time */
  concurrency: number;
  /** further ones waiting for a slot; beyond that the caller gets 503 SERVICE_UNAVAILABLE */
  maxQueued: number;
  /** the Retry-After (seconds) of that 503 */
  retryAfterSeconds: number;
}

/** Defaults for the service: two bcrypt computations at a time, 64 waiting. */
export const DEFAULT_HASHER_LIMITS = { concurrency: 2, maxQueued: 64, retryAfterSeconds: 1 } as const;

/**
 * bcrypt with bounded concurrency. bcryptjs is pure JavaScript: its asynchronous API computes
 * in slices of up to 100 ms on the event loop, so N computations at once delay every other
 * request by up to N slices. Here at most `concurrency` run at a time (other requests get the
 * loop between their slices), at most `maxQueued` wait in order of arrival, and any further
 * request is refused at once with 503 and Retry-After instead of queueing without bound.
 */
export class PasswordHasher {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** hash compared against for unknown e-mails, so timing does not tell; built on first use */
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly settings: PasswordHasherSettings) {}

  hash(password: string): Promise<string> {
    return this.run(() => bcrypt.hash(password, this.settings.rounds));
  }

  compare(password: string, hash: string): Promise<boolean> {
    return this.run(() => bcrypt.compare(password, hash));
  }

  /** As long as a real comparison, always false: for an unknown account. */
  async compareWithDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('no-such-user-dummy-password');
    await this.compare(password, await this.dummyHash);
    return false;
  }

  /** computations running and waiting now (tests, metrics) */
  get load(): { active: number; queued: number } {
    return { active: this.active, queued: this.waiting.length };
  }

  private async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active >= this.settings.concurrency) {
      if (this.waiting.length >= this.settings.maxQueued) {
        const retryAfter = String(this.settings.retryAfterSeconds);
        throw new AppError('SERVICE_UNAVAILABLE', { headers: { 'Retry-After': retryAfter } });
      }
      // the slot is handed over by the finishing job (active stays counted)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
