import type { ViewOf } from '../../lib/view.js';
import { matchingSettingsView } from './matching.views.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { EngineInput, OptOutMode, ScheduleSlot, UnavailableEntry } from './matching.engine.js';

type Db = Prisma.TransactionClient;

/** scheduleConfig `{ slots: [{ order, divisionIds }] }` → slots; anything else → null (each division alone). */
export function slotsOf(scheduleConfig: unknown): ScheduleSlot[] | null {
  const slots = (scheduleConfig as { slots?: unknown } | null)?.slots;
  if (!Array.isArray(slots)) return null;
  return slots
    .filter(
      (s): s is { order?: unknown; divisionIds: unknown[] } =>
        !!s && Array.isArray((s as { divisionIds?: unknown }).divisionIds),
    )
    .map((s, index) => ({
      order: typeof s.order === 'number' ? s.order : index,
      divisionIds: s.divisionIds.filter((d): d is number => Number.isInteger(d)),
    }));
}

/** A pending suggestion of an earlier run (or a pin): the engine keeps its pair when it can. */
export interface PendingSuggestion {
  id: number;
  heatId: number;
  recorderId: number;
  /** its stored `why` (a kept pair's is written again only when it changed) */
  why?: unknown;
}

/** The event's matching settings (EventMatchingSettings; no row = these defaults, today's rules). */
export type EventMatchingSettingsView = ViewOf<typeof matchingSettingsView>;

export const DEFAULT_MATCHING_SETTINGS: EventMatchingSettingsView = {
  bufferBefore: 0,
  bufferAfter: 1,
  maxRecordingsPerPerson: 3,
  optOutMode: 'last',
};

export async function readMatchingSettings(db: Db, eventId: number): Promise<EventMatchingSettingsView> {
  const row = await db.eventMatchingSettings.findUnique({ where: { eventId }, select: matchingSettingsView.select });
  if (!row) return { ...DEFAULT_MATCHING_SETTINGS };
  return { ...row, optOutMode: row.optOutMode as OptOutMode };
}

export interface LoadedEvent {
  input: EngineInput;
  /** the event's pending suggestions that are not pinned, also given to the engine as `previous` */
  pending: PendingSuggestion[];
  /** the event's pinned pending suggestions, given to the engine as `pinned` */
  pins: PendingSuggestion[];
  /** accepted suggestions between a blocked pair: the run cancels them and re-fills their heats */
  blockedAccepted: number[];
}

/**
 * Per user, accepted suggestions received minus accepted suggestions done, both counted at
 * events other than `eventId` (what happens at the event never shifts it).
 */
export async function balancesOf(db: Db, eventId: number, userIds: number[]): Promise<Map<number, number>> {
  const balance = new Map<number, number>(userIds.map((id) => [id, 0]));
  if (userIds.length === 0) return balance;
  const rows = await db.$queryRaw<{ userId: number; received: bigint; done: bigint }[]>`
    SELECT u.id AS "userId",
      (SELECT count(*) FROM "RecordingSuggestion" s WHERE s."dancerId" = u.id AND s.status = 'accepted' AND s."eventId" <> ${eventId}) AS received,
      (SELECT count(*) FROM "RecordingSuggestion" s WHERE s."recorderId" = u.id AND s.status = 'accepted' AND s."eventId" <> ${eventId}) AS done
    FROM unnest(${userIds}::int[]) AS u(id)`;
  for (const r of rows) balance.set(r.userId, Number(r.received) - Number(r.done));
  return balance;
}

/** Whether the user is suspended at `now` (suspendedAt set, until null or later). */
export function isSuspended(u: { suspendedAt: Date | null; suspendedUntil: Date | null }, now: Date): boolean {
  return u.suspendedAt !== null && (u.suspendedUntil === null || u.suspendedUntil > now);
}

/**
 * Database → engine input for one event at `now`: the event's settings; every participant
 * not suspended at `now` (location = the user's city and country, recorderOptOut, personal
 * cap, unavailable entries, absence, balance) and their heats (a suspended user's heats
 * are not part of the run); the schedule slots; the accepted suggestions (fixed) except
 * those between a blocked pair (cancelled by the run); the rejected and removed pairs and
 * every (heat, participant) pair of a blocked pair (forbidden); the pending pairs
 * (previous) and the pinned ones (pins).
 */
export async function loadEngineInput(
  db: Db,
  event: { id: number; scheduleConfig: unknown },
  now: Date,
): Promise<LoadedEvent> {
  const [settings, allParticipants, allHeats, history] = await Promise.all([
    readMatchingSettings(db, event.id),
    db.eventParticipant.findMany({
      where: { eventId: event.id },
      select: {
        userId: true,
        recorderOptOut: true,
        maxRecordings: true,
        unavailable: true,
        absentAt: true,
        user: { select: { city: true, country: true, suspendedAt: true, suspendedUntil: true } },
      },
    }),
    db.heat.findMany({
      where: { eventId: event.id },
      select: { id: true, userId: true, divisionId: true, competitionTypeId: true, heatNumber: true, role: true },
    }),
    db.recordingSuggestion.findMany({
      where: {
        eventId: event.id,
        status: { in: ['accepted', 'rejected', 'removed', 'pending'] },
        recorderId: { not: null },
      },
      select: { id: true, heatId: true, dancerId: true, recorderId: true, status: true, pinned: true, why: true },
    }),
  ]);
  const participants = allParticipants.filter((p) => !isSuspended(p.user, now));
  const ids = participants.map((p) => p.userId);
  const inRun = new Set(ids);
  const heats = allHeats.filter((h) => inRun.has(h.userId));
  const [balance, blocks] = await Promise.all([
    balancesOf(db, event.id, ids),
    ids.length
      ? db.userBlock.findMany({
          where: { blockerId: { in: ids }, blockedId: { in: ids } },
          select: { blockerId: true, blockedId: true },
        })
      : [],
  ]);
  const blockedWith = new Map<number, Set<number>>();
  for (const b of blocks) {
    for (const [x, y] of [
      [b.blockerId, b.blockedId],
      [b.blockedId, b.blockerId],
    ]) {
      if (!blockedWith.has(x)) blockedWith.set(x, new Set());
      blockedWith.get(x)!.add(y);
    }
  }
  const isBlocked = (a: number, b: number) => blockedWith.get(a)?.has(b) ?? false;
  const rows = history.map((s) => ({ ...s, recorderId: s.recorderId! }));
  const pairOnly = ({ heatId, recorderId }: PendingSuggestion) => ({ heatId, recorderId });
  const slim = (s: (typeof rows)[number]): PendingSuggestion => ({
    id: s.id,
    heatId: s.heatId,
    recorderId: s.recorderId,
    why: s.why,
  });
  const accepted = rows.filter((s) => s.status === 'accepted');
  const forbidden = rows.filter((s) => s.status === 'rejected' || s.status === 'removed').map(pairOnly);
  for (const h of heats)
    for (const other of blockedWith.get(h.userId) ?? []) forbidden.push({ heatId: h.id, recorderId: other });
  const pending = rows.filter((s) => s.status === 'pending' && !s.pinned).map(slim);
  const pins = rows.filter((s) => s.status === 'pending' && s.pinned).map(slim);
  return {
    input: {
      participants: participants.map((p) => ({
        userId: p.userId,
        city: p.user.city,
        country: p.user.country,
        optOut: p.recorderOptOut,
        maxRecordings: p.maxRecordings,
        unavailable: unavailableEntries(p.unavailable),
        absent: p.absentAt !== null,
        balance: balance.get(p.userId) ?? 0,
      })),
      heats,
      slots: slotsOf(event.scheduleConfig),
      fixed: accepted.filter((s) => !isBlocked(s.dancerId, s.recorderId)).map(pairOnly),
      forbidden,
      previous: pending.map(pairOnly),
      pinned: pins.map(pairOnly),
      ...settings,
    },
    pending,
    pins,
    blockedAccepted: accepted.filter((s) => isBlocked(s.dancerId, s.recorderId)).map((s) => s.id),
  };
}

/** The stored `unavailable` JSON (validated on the way in) as engine entries. */
export function unavailableEntries(value: unknown): UnavailableEntry[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (e): e is { competitionTypeId: number; heatNumber: number; divisionId?: number | null } =>
        !!e && typeof e === 'object',
    )
    .map((e) => ({
      competitionTypeId: e.competitionTypeId,
      heatNumber: e.heatNumber,
      divisionId: e.divisionId ?? null,
    }));
}
