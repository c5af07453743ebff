import { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { prisma } from '../../lib/prisma.js';
import { getEventBySlug } from '../events/event-access.js';
import type { ScheduleConfig } from './heats.validators.js';

/**
 * Per-event settings: the participant's own competitor number and recorder opt-out, and the
 * admin-only registration deadline and schedule configuration used by matching.
 * Each answers the updated setting only.
 */

const notParticipant = () => new AppError('NOT_PARTICIPANT');

/** Updates the caller's participation row; no row (not a participant) → 403. */
async function updateOwnParticipation(slug: string, userId: number, data: Prisma.EventParticipantUpdateManyMutationInput) {
  const event = await getEventBySlug(slug);
  const { count } = await prisma.eventParticipant.updateMany({ where: { eventId: event.id, userId }, data });
  if (count === 0) throw notParticipant();
  return event;
}

export async function setCompetitorNumber(slug: string, userId: number, value: string | number | null) {
  const competitorNumber = value === null ? null : String(value);
  const event = await updateOwnParticipation(slug, userId, { competitorNumber });
  return { event, setting: { competitorNumber } };
}

export async function setRecorderOptOut(slug: string, userId: number, optOut: boolean) {
  const event = await updateOwnParticipation(slug, userId, { recorderOptOut: optOut });
  return { event, setting: { recorderOptOut: optOut } };
}

/** An ISO date-time without offset is taken as UTC (JavaScript would read it as server-local time). */
function parseIsoAsUtc(value: string): Date {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(value);
  return new Date(value.includes('T') && !hasOffset ? `${value}Z` : value);
}

export async function setRegistrationDeadline(slug: string, value: string | null) {
  const event = await getEventBySlug(slug);
  const updated = await prisma.event.update({
    where: { id: event.id },
    data: { registrationDeadline: value === null ? null : parseIsoAsUtc(value) },
    select: { registrationDeadline: true },
  });
  return { event, previous: event.registrationDeadline, setting: { registrationDeadline: updated.registrationDeadline } };
}

export async function setScheduleConfig(slug: string, value: ScheduleConfig | null) {
  const event = await getEventBySlug(slug);
  // SQL NULL for null (Prisma.DbNull), never the JSON value null.
  await prisma.event.update({
    where: { id: event.id },
    data: { scheduleConfig: value === null ? Prisma.DbNull : (value as unknown as Prisma.InputJsonValue) },
  });
  return { event, setting: { scheduleConfig: value } };
}
