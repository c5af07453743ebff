import { randomBytes } from 'node:crypto';
import { validationResult } from 'express-validator';
import { AppError } from '../lib/errors.js';
import { registerInput } from '../modules/auth/auth.schemas.js';
import type { OperatorAccountsService } from '../modules/users/operator-accounts.service.js';
import type { MatchingRunsService } from '../modules/matching/matching-runs.service.js';
import { systemActor } from '../lib/actor.js';
import type { EventsService } from '../modules/events/events.service.js';
import type { IpRetentionService } from '../modules/privacy/ip-retention.service.js';

export interface CreateUserInput {
  email?: string;
  username?: string;
  /** USER_PASSWORD; unset → a generated one, printed once */
  password?: string;
  isAdmin: boolean;
}

/**
 * `user:create`: validates the fields with the registration's own rules (the declaration behind
 * POST /auth/register), then creates a verified account through OperatorAccountsService.createAccount.
 */
export async function createUser(accounts: Pick<OperatorAccountsService, 'createAccount'>, input: CreateUserInput) {
  const generated = !input.password;
  const password = input.password || randomBytes(12).toString('base64url');
  const req = { body: { email: input.email ?? null, username: input.username ?? null, password } };
  for (const chain of registerInput.chains) await chain.run(req);
  const problems = validationResult(req).array();
  if (problems.length) {
    const lines = problems.map(
      (p) =>
        `${p.type === 'field' ? (p.path === 'password' ? 'USER_PASSWORD' : `--${p.path}`) : ''}: ${p.msg as string}`,
    );
    throw new AppError('VALIDATION_ERROR', { message: `Validation failed:\n  ${lines.join('\n  ')}` });
  }
  const user = await accounts.createAccount(systemActor('cli'), {
    email: req.body.email as string,
    username: req.body.username as string,
    password,
    isAdmin: input.isAdmin,
  });
  return { user, password, generated };
}

export interface CreateEventInput {
  name?: string;
  location?: string;
  start?: string;
  end?: string;
  registryId?: string;
  description?: string;
}

function parseDate(label: string, value: string | undefined): Date {
  if (!value) throw new AppError('BAD_REQUEST', { message: `--${label} is required` });
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new AppError('BAD_REQUEST', { message: `--${label} must be an ISO 8601 date` });
  return date;
}

/** event:create: parses the options and creates the event through EventsService.create (as POST /admin/events does). */
export async function createEvent(events: EventsService, input: CreateEventInput) {
  const name = input.name?.trim();
  const location = input.location?.trim();
  if (!name) throw new AppError('BAD_REQUEST', { message: '--name is required' });
  if (!location) throw new AppError('BAD_REQUEST', { message: '--location is required' });
  const startDate = parseDate('start', input.start);
  const endDate = parseDate('end', input.end);
  if (endDate < startDate) throw new AppError('BAD_REQUEST', { message: '--end must not be before --start' });
  return events.create(systemActor('cli'), {
    name,
    location,
    startDate,
    endDate,
    worldRegistryId: input.registryId?.trim() || null,
    description: input.description?.trim() || null,
  });
}

/**
 * Runs matching for an event now (trigger "manual", the system actor "cli") and returns the
 * finished run; a failed run (kept with its error) or a run already in progress ends with exit 1.
 */
export async function runMatching(matching: MatchingRunsService, slug: string): Promise<unknown> {
  const run = await matching.runNow(systemActor('cli'), { slug });
  if (run.status !== 'success')
    throw new AppError('MATCHING_RUN_FAILED', {
      message: `Matching run ${run.id} failed: ${run.error ?? 'unknown error'}`,
    });
  return run;
}

/**
 * `privacy:purge-ips [--as-of <ISO timestamp>]`: the IP purge once, counting the retention back
 * from `asOf` (default now) instead of now; answers the number of entries cleared. An `asOf` that
 * is not a timestamp → 400 before anything changes. Leaves the instances' lastIpPurgeAt alone.
 */
export function purgeIps(
  { ipRetention }: { ipRetention: IpRetentionService },
  asOf: string | undefined,
): Promise<number> {
  return ipRetention.purge(systemActor('privacy:purge-ips'), {
    asOf: asOf === undefined ? undefined : parseTimestamp('as-of', asOf),
  });
}

/** An ISO 8601 timestamp (a date with a time, or a date alone), else 400 naming the option. */
function parseTimestamp(label: string, value: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())
    ? new Date(value.trim())
    : new Date(NaN);
  if (Number.isNaN(date.getTime()))
    throw new AppError('BAD_REQUEST', { message: `--${label} must be an ISO 8601 timestamp` });
  return date;
}
