import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/prisma-errors.js';
import type { ReferenceData, ReferenceItem } from '../../lib/reference-data.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms, type HeatPayload } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { heatView, type UserHeatsView } from './heats.views.js';
import { knownHeatIds, type DeleteHeatInput, type EventSlugInput, type ReplaceHeatsInput } from './heats.schemas.js';

type Db = Prisma.TransactionClient | PrismaClient;

/** The Prisma select of the heat view (heats.views.ts): a row read with it is the answer's heat. */
const heatSelect = heatView.select;

/** The heats/me order (competition type, division, heat number), made total by role and id. */
const heatOrder: Prisma.HeatOrderByWithRelationInput[] = [
  { competitionTypeId: 'asc' },
  { divisionId: 'asc' },
  { heatNumber: 'asc' },
  { role: 'asc' },
  { id: 'asc' },
];

export type UserHeats = UserHeatsView;

// Long enough for concurrent submissions of one user that queue on the participation row lock.
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

export interface HeatsDeps {
  db: PrismaClient;
  notifier: Notifier;
  audit: Pick<ActivityLogService, 'record'>;
  eventAccess: Pick<EventAccess, 'getBySlug'>;
  reference: Pick<ReferenceData, 'divisions' | 'competitionTypes' | 'divisionIds' | 'competitionTypeIds'>;
}

/**
 * Heats: the divisions and heat numbers a participant dances at an event. Owns the table `Heat`
 * (only this service writes it). The caller is the actor's user (401 AUTH_REQUIRED without one).
 */
export class HeatsService {
  private readonly db: PrismaClient;
  private readonly notifier: Notifier;
  private readonly audit: Pick<ActivityLogService, 'record'>;
  private readonly eventAccess: Pick<EventAccess, 'getBySlug'>;

  constructor(private readonly deps: HeatsDeps) {
    ({ db: this.db, notifier: this.notifier, audit: this.audit, eventAccess: this.eventAccess } = deps);
  }

  /** Divisions (reference data), ordered by id; public. */
  divisions(_actor: Actor): Promise<ReferenceItem[]> {
    return this.deps.reference.divisions();
  }

  /** Competition types (reference data), ordered by id; public. */
  competitionTypes(_actor: Actor): Promise<ReferenceItem[]> {
    return this.deps.reference.competitionTypes();
  }

  /**
   * Replaces all heats of the caller at the event by `heats` (their shape validated beforehand),
   * atomically. Checks: unknown division or competition type ids 400 (the end of the body
   * check, knownHeatIds) → event 404 → participation 403 → duplicates 400. The participant row is locked first
   * (SELECT ... FOR UPDATE): concurrent submissions of the same user at the same event run one
   * after the other, so the final set is exactly one submission, never a mix; the lock doubles
   * as the participation check. Duplicates (same role, or both without role, in one division
   * and competition type) are refused by the NULLS NOT DISTINCT unique index (P2002 → 400) and
   * the whole transaction rolls back: the previous set stays. After the commit, `heats_updated`
   * goes to the event room. Audited as event/heats_save.
   */
  async replaceHeats(actor: Actor, { slug, heats }: ReplaceHeatsInput): Promise<HeatPayload[]> {
    const user = userOf(actor);
    const { reference } = this.deps;
    knownHeatIds(heats, {
      divisionIds: await reference.divisionIds(),
      competitionTypeIds: await reference.competitionTypeIds(),
    });
    const event = await this.eventAccess.getBySlug(slug);
    let saved: HeatPayload[];
    try {
      saved = await this.db.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<{ id: number }[]>`
          SELECT "id" FROM "EventParticipant"
          WHERE "userId" = ${user.id} AND "eventId" = ${event.id}
          FOR UPDATE`;
        if (locked.length === 0) throw new AppError('NOT_PARTICIPANT');
        await tx.heat.deleteMany({ where: { eventId: event.id, userId: user.id } });
        await tx.heat.createMany({ data: heats.map((h) => ({ ...h, eventId: event.id, userId: user.id })) });
        return this.userHeats(event.id, user.id, tx);
      }, TX_OPTIONS);
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('DUPLICATE_HEAT');
      // A division or competition type removed between validation and insert.
      if (isForeignKeyViolation(err))
        throw new AppError('VALIDATION_ERROR', { message: 'Unknown division or competition type' });
      throw err;
    }
    this.notifier.toRoomBatched(rooms.event(event.id), 'heats_updated', {
      userId: user.id,
      username: user.username,
      heats: saved,
    });
    await this.audit.record(actor, {
      category: 'event',
      action: 'heats_save',
      resource: `event:${slug}`,
      metadata: { count: saved.length },
    });
    return saved;
  }

  /** The caller's heats with their competitorNumber. Event 404; a non-participant simply has none. */
  async myHeats(actor: Actor, { slug }: EventSlugInput): Promise<HeatPayload[]> {
    const userId = userOf(actor).id;
    const event = await this.eventAccess.getBySlug(slug);
    const participant = await this.db.eventParticipant.findUnique({
      where: { userId_eventId: { userId, eventId: event.id } },
      select: { competitorNumber: true },
    });
    if (!participant) return [];
    const heats = await this.userHeats(event.id, userId);
    return heats.map((h) => ({ ...h, competitorNumber: participant.competitorNumber }));
  }

  /**
   * The data export (src/modules/privacy): every heat of the user at every event, each the heat
   * object of heats/me plus its event; by event, then in the heats/me order.
   */
  async heatsOfUser(_actor: Actor, { userId }: { userId: number }) {
    const rows = await this.db.heat.findMany({
      where: { userId },
      select: {
        ...heatSelect,
        participant: { select: { competitorNumber: true } },
        event: { select: { id: true, slug: true, name: true } },
      },
      orderBy: [{ eventId: 'asc' }, ...heatOrder],
    });
    return rows.map(({ participant, event, ...heat }) => ({
      ...heat,
      competitorNumber: participant.competitorNumber,
      event,
    }));
  }

  /** Every participant with at least one heat, by username; heats in the heats/me order. Event 404. */
  async allHeats(_actor: Actor, { slug }: EventSlugInput): Promise<UserHeats[]> {
    const event = await this.eventAccess.getBySlug(slug);
    const participants = await this.db.eventParticipant.findMany({
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
      heats: p.heats.map((h) => ({ ...h, competitorNumber: p.competitorNumber })),
    }));
  }

  /**
   * Deletes one heat of the caller. Checks: event 404 → heat of this event 404 (also for an
   * id that is not a positive integer, given as undefined) → owner 403. After the delete,
   * `heats_updated` with the remaining heats goes to the event room so live lists stay in
   * sync. Audited as event/heat_delete.
   */
  async deleteHeat(actor: Actor, { slug, id: heatId }: DeleteHeatInput): Promise<void> {
    const user = userOf(actor);
    const event = await this.eventAccess.getBySlug(slug);
    const heat =
      heatId === undefined
        ? null
        : await this.db.heat.findFirst({
            where: { id: heatId, eventId: event.id },
            select: { ...heatSelect, userId: true },
          });
    if (!heat) throw new AppError('HEAT_NOT_FOUND');
    if (heat.userId !== user.id) throw new AppError('NOT_HEAT_OWNER');
    // deleteMany: a concurrent replacement may already have removed it → 404, not a 500.
    const { count } = await this.db.heat.deleteMany({ where: { id: heat.id, userId: user.id } });
    if (count === 0) throw new AppError('HEAT_NOT_FOUND');
    const heats = await this.userHeats(event.id, user.id);
    this.notifier.toRoomBatched(rooms.event(event.id), 'heats_updated', {
      userId: user.id,
      username: user.username,
      heats,
    });
    const { userId: _owner, ...deleted } = heat;
    await this.audit.record(actor, {
      category: 'event',
      action: 'heat_delete',
      resource: `event:${slug}`,
      metadata: { heat: { ...deleted } },
    });
  }

  private async userHeats(eventId: number, userId: number, db: Db = this.db): Promise<HeatPayload[]> {
    const rows = await db.heat.findMany({ where: { eventId, userId }, select: heatSelect, orderBy: heatOrder });
    return rows;
  }
}
