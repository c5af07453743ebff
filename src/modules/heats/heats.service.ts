import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/prisma-errors.js';
import { prisma } from '../../lib/prisma.js';
import { emitToRoom } from '../../realtime/io.js';
import { rooms, type HeatPayload } from '../../realtime/types.js';
import { getEventBySlug } from '../events/event-access.js';
import { HeatMessages, type HeatInput } from './heats.validators.js';

type Db = Prisma.TransactionClient | typeof prisma;

const referenceSelect = { id: true, name: true, abbreviation: true } as const;

export const heatSelect = {
  id: true,
  divisionId: true,
  division: { select: referenceSelect },
  competitionTypeId: true,
  competitionType: { select: referenceSelect },
  heatNumber: true,
  role: true,
} as const;

/** SPEC order of heats/me, made total by role and id. */
const heatOrder: Prisma.HeatOrderByWithRelationInput[] = [
  { competitionTypeId: 'asc' },
  { divisionId: 'asc' },
  { heatNumber: 'asc' },
  { role: 'asc' },
  { id: 'asc' },
];

type HeatRow = Prisma.HeatGetPayload<{ select: typeof heatSelect }>;

const toHeat = (row: HeatRow): HeatPayload => ({
  id: row.id,
  divisionId: row.divisionId,
  division: row.division,
  competitionTypeId: row.competitionTypeId,
  competitionType: row.competitionType,
  heatNumber: row.heatNumber,
  role: row.role,
});

const duplicateHeat = () => new AppError('DUPLICATE_HEAT');

export async function listDivisions() {
  return prisma.division.findMany({ select: referenceSelect, orderBy: { id: 'asc' } });
}

export async function listCompetitionTypes() {
  return prisma.competitionType.findMany({ select: referenceSelect, orderBy: { id: 'asc' } });
}

async function userHeats(eventId: number, userId: number, db: Db = prisma): Promise<HeatPayload[]> {
  const rows = await db.heat.findMany({ where: { eventId, userId }, select: heatSelect, orderBy: heatOrder });
  return rows.map(toHeat);
}

/**
 * Replaces all heats of the user at the event by `heats`, atomically.
 * The participant row is locked first (SELECT ... FOR UPDATE): concurrent submissions of
 * the same user at the same event run one after the other, so the final set is exactly one
 * submission, never a mix. The same lock doubles as the participation check (403).
 * Duplicates (same role, or both without role, in one division and competition type) are
 * refused by the NULLS NOT DISTINCT unique index (P2002 → 400) and the whole transaction,
 * the deletion included, rolls back: the previous set stays.
 */
export async function replaceHeats(
  slug: string,
  user: { id: number; username: string },
  heats: HeatInput[],
): Promise<{ eventId: number; heats: HeatPayload[] }> {
  const event = await getEventBySlug(slug);
  let saved: HeatPayload[];
  try {
    saved = await prisma.$transaction(
      async (tx) => {
        const locked = await tx.$queryRaw<{ id: number }[]>`
          SELECT "id" FROM "EventParticipant"
          WHERE "userId" = ${user.id} AND "eventId" = ${event.id}
          FOR UPDATE`;
        if (locked.length === 0) throw new AppError('NOT_PARTICIPANT');
        await tx.heat.deleteMany({ where: { eventId: event.id, userId: user.id } });
        await tx.heat.createMany({
          data: heats.map((h) => ({ ...h, eventId: event.id, userId: user.id })),
        });
        return userHeats(event.id, user.id, tx);
      },
      { maxWait: 10_000, timeout: 15_000 },
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateHeat();
    // A division or competition type removed between validation and insert.
    if (isForeignKeyViolation(err)) throw new AppError('VALIDATION_ERROR', { message: 'Unknown division or competition type' });
    throw err;
  }
  // After the commit; emitToRoom never throws, so a failed broadcast never fails the request.
  emitToRoom(rooms.event(event.id), 'heats_updated', { userId: user.id, username: user.username, heats: saved });
  return { eventId: event.id, heats: saved };
}

/** The caller's heats with competitorNumber; a non-participant simply has none. */
export async function myHeats(slug: string, userId: number): Promise<HeatPayload[]> {
  const event = await getEventBySlug(slug);
  const participant = await prisma.eventParticipant.findUnique({
    where: { userId_eventId: { userId, eventId: event.id } },
    select: { competitorNumber: true },
  });
  if (!participant) return [];
  const heats = await userHeats(event.id, userId);
  return heats.map((h) => ({ ...h, competitorNumber: participant.competitorNumber }));
}

export interface UserHeats {
  userId: number;
  username: string;
  avatar: string;
  competitorNumber: string | null;
  heats: HeatPayload[];
}

/** Every participant with at least one heat, by username; heats in the heats/me order. */
export async function allHeats(slug: string): Promise<UserHeats[]> {
  const event = await getEventBySlug(slug);
  const participants = await prisma.eventParticipant.findMany({
    where: { eventId: event.id, heats: { some: {} } },
    select: {
      competitorNumber: true,
      user: { select: { id: true, username: true, avatar: true } },
      heats: { select: heatSelect, orderBy: heatOrder },
    },
    orderBy: [{ user: { username: 'asc' } }, { userId: 'asc' }],
  });
  return participants.map((p) => ({
    userId: p.user.id,
    username: p.user.username,
    avatar: p.user.avatar,
    competitorNumber: p.competitorNumber,
    heats: p.heats.map((h) => ({ ...toHeat(h), competitorNumber: p.competitorNumber })),
  }));
}

/**
 * Deletes one heat of the caller. Checks: event 404 → heat (of this event) 404 → owner 403.
 * Returns the caller's remaining heats (broadcast as heats_updated so lists stay in sync).
 */
export async function deleteHeat(
  slug: string,
  heatId: number | undefined,
  user: { id: number; username: string },
): Promise<{ eventId: number; heats: HeatPayload[]; deleted: HeatPayload }> {
  const event = await getEventBySlug(slug);
  const heat =
    heatId === undefined
      ? null
      : await prisma.heat.findFirst({ where: { id: heatId, eventId: event.id }, select: { ...heatSelect, userId: true } });
  if (!heat) throw new AppError('HEAT_NOT_FOUND');
  if (heat.userId !== user.id) throw new AppError('NOT_HEAT_OWNER');
  // deleteMany: a concurrent replacement may already have removed it → 404, not a 500.
  const { count } = await prisma.heat.deleteMany({ where: { id: heat.id, userId: user.id } });
  if (count === 0) throw new AppError('HEAT_NOT_FOUND');
  const heats = await userHeats(event.id, user.id);
  emitToRoom(rooms.event(event.id), 'heats_updated', { userId: user.id, username: user.username, heats });
  return { eventId: event.id, heats, deleted: toHeat(heat) };
}
