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

/** A pending suggestion of an earlier run: the engine keeps its pair when it can (stable re-runs). */
export interface PendingSuggestion {
  id: number;
  heatId: number;
  recorderId: number;
}

export interface LoadedEvent {
  input: EngineInput;
  /** the event's pending suggestions, also given to the engine as `previous` */
  pending: PendingSuggestion[];
}

/**
 * Database → engine input for one event: every participant (location = the user's city
 * and country, recorderOptOut), every heat, the schedule slots, the accepted suggestions
 * of earlier runs (fixed: the heat is covered and counts toward the recorder's cap), the
 * rejected (heat, recorder) pairs (never proposed again) and the pending pairs (kept unless
 * dropping one is needed to reach the optimum).
 */
export async function loadEngineInput(db: Db, event: { id: number; scheduleConfig: unknown }): Promise<LoadedEvent> {
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
      where: { eventId: event.id, status: { in: ['accepted', 'rejected', 'pending'] }, recorderId: { not: null } },
      select: { id: true, heatId: true, recorderId: true, status: true },
    }),
  ]);
  const pairs = (status: string) =>
    history.filter((s) => s.status === status).map((s) => ({ id: s.id, heatId: s.heatId, recorderId: s.recorderId! }));
  const pending = pairs('pending');
  const pairOnly = ({ heatId, recorderId }: PendingSuggestion) => ({ heatId, recorderId });
  return {
    input: {
      participants: participants.map((p) => ({ userId: p.userId, city: p.user.city, country: p.user.country, optOut: p.recorderOptOut })),
      heats,
      slots: slotsOf(event.scheduleConfig),
      fixed: pairs('accepted').map(pairOnly),
      forbidden: pairs('rejected').map(pairOnly),
      previous: pending.map(pairOnly),
    },
    pending,
  };
}
