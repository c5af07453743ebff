import type { Prisma } from '../../generated/prisma/client.js';
import type { EngineInput, ScheduleSlot } from './matching.engine.js';

type Db = Prisma.TransactionClient;

/** scheduleConfig `{ slots: [{ order, divisionIds }] }` → slots; anything else → null (each division alone). */
export function slotsOf(scheduleConfig: unknown): ScheduleSlot[] | null {
  const slots = (scheduleConfig as { slots?: unknown } | null)?.slots;
  if (!Array.isArray(slots)) return null;
  return slots
    .filter((s): s is { order?: unknown; divisionIds: unknown[] } => !!s && Array.isArray((s as { divisionIds?: unknown }).divisionIds))
    .map((s, index) => ({
      order: typeof s.order === 'number' ? s.order : index,
      divisionIds: s.divisionIds.filter((d): d is number => Number.isInteger(d)),
    }));
}

/**
 * Database → engine input for one event: every participant (location = the user's city
 * and country, recorderOptOut), every heat, the schedule slots, the accepted suggestions
 * of earlier runs (fixed: the heat is covered and counts toward the recorder's cap) and
 * the rejected (heat, recorder) pairs (never proposed again).
 */
export async function loadEngineInput(db: Db, event: { id: number; scheduleConfig: unknown }): Promise<EngineInput> {
  const [participants, heats, history] = await Promise.all([
    db.eventParticipant.findMany({
      where: { eventId: event.id },
      select: { userId: true, recorderOptOut: true, user: { select: { city: true, country: true } } },
    }),
    db.heat.findMany({
      where: { eventId: event.id },
      select: { id: true, userId: true, divisionId: true, competitionTypeId: true, heatNumber: true, role: true },
    }),
    db.recordingSuggestion.findMany({
      where: { eventId: event.id, status: { in: ['accepted', 'rejected'] }, recorderId: { not: null } },
      select: { heatId: true, recorderId: true, status: true },
    }),
  ]);
  return {
    participants: participants.map((p) => ({ userId: p.userId, city: p.user.city, country: p.user.country, optOut: p.recorderOptOut })),
    heats,
    slots: slotsOf(event.scheduleConfig),
    fixed: history.filter((s) => s.status === 'accepted').map((s) => ({ heatId: s.heatId, recorderId: s.recorderId! })),
    forbidden: history.filter((s) => s.status === 'rejected').map((s) => ({ heatId: s.heatId, recorderId: s.recorderId! })),
  };
}
