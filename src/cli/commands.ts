import { systemActor } from '../lib/actor.js';
import { AppError } from '../lib/errors.js';
import type { MatchingService } from '../modules/matching/matching.service.js';
import { prisma } from '../lib/prisma.js';
import { createEvent as createEventRecord } from '../modules/events/events.service.js';

export async function promoteUser(email: string) {
  const user = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!user) throw new AppError('USER_NOT_FOUND', { message: `No user with e-mail ${email}` });
  return prisma.user.update({ where: { id: user.id }, data: { isAdmin: true } });
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
  if (Number.isNaN(date.getTime())) throw new AppError('BAD_REQUEST', { message: `--${label} must be an ISO 8601 date` });
  return date;
}

/** Creates an event with a random slug (shared by the CLI and POST /admin/events). */
export async function createEvent(input: CreateEventInput) {
  const name = input.name?.trim();
  const location = input.location?.trim();
  if (!name) throw new AppError('BAD_REQUEST', { message: '--name is required' });
  if (!location) throw new AppError('BAD_REQUEST', { message: '--location is required' });
  const startDate = parseDate('start', input.start);
  const endDate = parseDate('end', input.end);
  if (endDate < startDate) throw new AppError('BAD_REQUEST', { message: '--end must not be before --start' });
  return createEventRecord({
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
export async function runMatching(matching: MatchingService, slug: string): Promise<unknown> {
  const run = await matching.runNow(slug, systemActor('cli'));
  if (run.status !== 'success') throw new AppError('MATCHING_RUN_FAILED', { message: `Matching run ${run.id} failed: ${run.error ?? 'unknown error'}` });
  return run;
}
