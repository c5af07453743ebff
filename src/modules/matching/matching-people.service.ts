import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { buildSlotMap } from './matching.engine.js';
import { balancesOf, readMatchingSettings, slotsOf, unavailableEntries } from './matching.loader.js';
import type { MatchingLock } from './matching.lock.js';
import { suggestionSelect } from './matching.views.js';
import { whyOf } from './matching.why.js';
import type { AbsentInput, PinInput, RemoveSuggestionInput } from './matching-people.schemas.js';

type Db = Prisma.TransactionClient;

/** What the admins' interventions use (built by src/container.ts). */
export interface MatchingPeopleDeps {
  db: PrismaClient;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  lock: MatchingLock;
  clock: Clock;
}

/**
 * Fair matching for people (docs/fair-matching.md): the admins' pins, removals and no-show
 * marks (the absentAt column of EventParticipant is written through the events feature's
 * EventAccess). Writes that change what a run may do
 * hold the event's shared matching lock, so they never interleave with a run. The event's
 * settings and a participant's preferences are matching-settings.service.ts'.
 */
export class MatchingPeopleService {
  constructor(private readonly deps: MatchingPeopleDeps) {}

  // ---- pins and removals ----------------------------------------------------------------

  /**
   * An admin pins `recorderId` to a heat. Check order (after admin and body): event 404 → heat
   * of this event 404 → 409 with the first rule broken (see pinRefusal). It replaces the
   * heat's pending or not_found suggestion; an existing (removed, cancelled or pending)
   * suggestion of the pair becomes the pinned one (same id). Audited as
   * admin/recording_suggestion_pin.
   */
  async pin(actor: Actor, input: PinInput) {
    const { db } = this.deps;
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const id = await db.$transaction(async (tx) => {
      await this.deps.lock.holdSharedInTransaction(tx, event.id);
      const heat = await tx.heat.findFirst({ where: { id: input.heatId, eventId: event.id } });
      if (!heat) throw new AppError('HEAT_NOT_FOUND');
      await tx.$queryRaw`SELECT id FROM "Heat" WHERE id = ${heat.id} FOR UPDATE`;
      await this.assertPinAllowed(tx, event, heat, input.recorderId);
      const existing = await tx.recordingSuggestion.findUnique({
        where: { heatId_recorderId: { heatId: heat.id, recorderId: input.recorderId } },
      });
      await tx.recordingSuggestion.deleteMany({
        where: {
          heatId: heat.id,
          status: { in: ['pending', 'not_found'] },
          ...(existing ? { id: { not: existing.id } } : {}),
        },
      });
      const why = await this.whyOfPin(tx, event.id, heat.userId, input.recorderId);
      const data = {
        status: 'pending',
        pinned: true,
        originRunId: null,
        why: why as unknown as Prisma.InputJsonValue,
        respondedAt: null,
        unfilledReason: null,
      };
      if (existing)
        return (await tx.recordingSuggestion.update({ where: { id: existing.id }, data, select: { id: true } })).id;
      const created = await tx.recordingSuggestion.create({
        data: { ...data, eventId: event.id, heatId: heat.id, dancerId: heat.userId, recorderId: input.recorderId },
        select: { id: true },
      });
      return created.id;
    });
    const view = await db.recordingSuggestion.findUniqueOrThrow({ where: { id }, select: suggestionSelect });
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'recording_suggestion_pin',
      resource: `event:${event.slug}`,
      metadata: { suggestionId: id, heatId: input.heatId, recorderId: input.recorderId, dancerId: view.dancer.id },
    });
    return view;
  }

  /**
   * The rules a pin must meet, checked in this order: HEAT_ALREADY_COVERED (accepted
   * suggestion), RECORDER_IS_DANCER, RECORDER_NOT_PARTICIPANT, RECORDER_ABSENT,
   * RECORDER_DANCING (rule 1), RECORDER_IN_BUFFER (the event's buffers), RECORDER_UNAVAILABLE,
   * PAIR_REJECTED, RECORDER_AT_CAP (accepted and pending suggestions at the event, pinned
   * included, on other heats, against min(personal, event)). Opt-out never blocks a pin.
   */
  private async assertPinAllowed(
    tx: Db,
    event: { id: number; scheduleConfig: unknown },
    heat: { id: number; userId: number; divisionId: number; competitionTypeId: number; heatNumber: number },
    recorderId: number,
  ): Promise<void> {
    const accepted = await tx.recordingSuggestion.count({ where: { heatId: heat.id, status: 'accepted' } });
    if (accepted > 0) throw new AppError('HEAT_ALREADY_COVERED');
    if (recorderId === heat.userId) throw new AppError('RECORDER_IS_DANCER');
    const p = await tx.eventParticipant.findUnique({
      where: { userId_eventId: { userId: recorderId, eventId: event.id } },
    });
    if (!p) throw new AppError('RECORDER_NOT_PARTICIPANT');
    if (p.absentAt) throw new AppError('RECORDER_ABSENT');
    const settings = await readMatchingSettings(tx, event.id);
    const slotOf = buildSlotMap(slotsOf(event.scheduleConfig));
    const slot = (d: number) => slotOf.get(d) ?? d;
    const own = await tx.heat.findMany({
      where: { eventId: event.id, userId: recorderId, competitionTypeId: heat.competitionTypeId },
    });
    const sameSlot = own.filter((h) => slot(h.divisionId) === slot(heat.divisionId));
    if (sameSlot.some((h) => h.heatNumber === heat.heatNumber)) throw new AppError('RECORDER_DANCING');
    if (
      sameSlot.some(
        (h) =>
          heat.heatNumber >= h.heatNumber - settings.bufferBefore &&
          heat.heatNumber <= h.heatNumber + settings.bufferAfter,
      )
    )
      throw new AppError('RECORDER_IN_BUFFER');
    const covered = unavailableEntries(p.unavailable).some(
      (e) =>
        e.competitionTypeId === heat.competitionTypeId &&
        e.heatNumber === heat.heatNumber &&
        (e.divisionId === null || slot(e.divisionId) === slot(heat.divisionId)),
    );
    if (covered) throw new AppError('RECORDER_UNAVAILABLE');
    const rejected = await tx.recordingSuggestion.count({ where: { heatId: heat.id, recorderId, status: 'rejected' } });
    if (rejected > 0) throw new AppError('PAIR_REJECTED');
    const cap = Math.min(p.maxRecordings ?? settings.maxRecordingsPerPerson, settings.maxRecordingsPerPerson);
    const load = await tx.recordingSuggestion.count({
      where: { eventId: event.id, recorderId, status: { in: ['accepted', 'pending'] }, heatId: { not: heat.id } },
    });
    if (load >= cap) throw new AppError('RECORDER_AT_CAP');
  }

  private async whyOfPin(tx: Db, eventId: number, dancerId: number, recorderId: number) {
    const [people, participation, balance] = await Promise.all([
      tx.user.findMany({
        where: { id: { in: [dancerId, recorderId] } },
        select: { id: true, city: true, country: true },
      }),
      tx.eventParticipant.findUnique({
        where: { userId_eventId: { userId: recorderId, eventId } },
        select: { recorderOptOut: true },
      }),
      balancesOf(tx, eventId, [recorderId]),
    ]);
    const dancer = people.find((u) => u.id === dancerId)!;
    const recorder = people.find((u) => u.id === recorderId)!;
    return whyOf(
      dancer,
      { ...recorder, optOut: participation?.recorderOptOut ?? false, balance: balance.get(recorderId) ?? 0 },
      true,
    );
  }

  /**
   * An admin removes a pending suggestion (pinned or not): status "removed"; the pair is
   * never proposed again. Check order: event 404 → suggestion of this event 404 (null = a
   * malformed id) → not pending 409. Audited as admin/recording_suggestion_remove.
   */
  async remove(actor: Actor, input: RemoveSuggestionInput) {
    const { db } = this.deps;
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    if (input.id === null) throw new AppError('SUGGESTION_NOT_FOUND');
    const suggestionId = input.id;
    await db.$transaction(async (tx) => {
      await this.deps.lock.holdSharedInTransaction(tx, event.id);
      const s = await tx.recordingSuggestion.findFirst({
        where: { id: suggestionId, eventId: event.id },
        select: { status: true },
      });
      if (!s) throw new AppError('SUGGESTION_NOT_FOUND');
      const { count } = await tx.recordingSuggestion.updateMany({
        where: { id: suggestionId, status: 'pending' },
        data: { status: 'removed', respondedAt: this.deps.clock.now() },
      });
      if (count === 0) throw new AppError('SUGGESTION_NOT_PENDING');
    });
    const view = await db.recordingSuggestion.findUniqueOrThrow({
      where: { id: suggestionId },
      select: suggestionSelect,
    });
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'recording_suggestion_remove',
      resource: `event:${event.slug}`,
      metadata: {
        suggestionId,
        heatId: view.heat.id,
        recorderId: view.recorder?.id ?? null,
        dancerId: view.dancer.id,
        pinned: view.pinned,
      },
    });
    return view;
  }

  // ---- no-shows -------------------------------------------------------------------------

  /**
   * Marks a participant absent: his/her pending (pinned included) and accepted suggestions as
   * recorder at the event become "cancelled" (matches created by accepting stay). Again →
   * 200 with 0. Check order: event 404 → PARTICIPANT_NOT_FOUND 404. Audited as
   * admin/participant_absent.
   */
  async markAbsent(actor: Actor, input: AbsentInput) {
    const { db } = this.deps;
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const cancelledSuggestions = await db.$transaction(async (tx) => {
      await this.deps.lock.holdSharedInTransaction(tx, event.id);
      const marked = await this.deps.eventAccess.setAbsent(event.id, input.userId, this.deps.clock.now(), tx);
      if (marked === 0) throw new AppError('PARTICIPANT_NOT_FOUND');
      const { count } = await tx.recordingSuggestion.updateMany({
        where: { eventId: event.id, recorderId: input.userId, status: { in: ['pending', 'accepted'] } },
        data: { status: 'cancelled' },
      });
      return count;
    });
    const result = { userId: input.userId, absent: true as const, cancelledSuggestions };
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'participant_absent',
      resource: `event:${event.slug}`,
      metadata: result,
    });
    return result;
  }

  /** Clears the mark (also when not marked); cancelled suggestions stay cancelled. Audited as admin/participant_absent_cleared. */
  async clearAbsent(actor: Actor, input: AbsentInput) {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const count = await this.deps.eventAccess.setAbsent(event.id, input.userId, null);
    if (count === 0) throw new AppError('PARTICIPANT_NOT_FOUND');
    const result = { userId: input.userId, absent: false as const };
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'participant_absent_cleared',
      resource: `event:${event.slug}`,
      metadata: result,
    });
    return result;
  }
}
