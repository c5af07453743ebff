import { Prisma, type Event, type PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { sql, toDate, type SqlReader } from '../../lib/sql.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import type { MatchesService } from '../matches/matches.service.js';
import { isBlockedPair } from '../moderation/blocks.views.js';
import type { MatchingLock } from './matching.lock.js';
import type { Decision, DecisionInput, EventInput } from './matching.schemas.js';
import {
  RECORDER_DELETED,
  suggestionOrder,
  suggestionSelect,
  suggestionsJson,
  type SuggestionJson,
} from './matching.views.js';

export type { SuggestionView } from './matching.views.js';

export type { Decision, DecisionInput } from './matching.schemas.js';

/** An account deletion keeps these as unfilled heats (RECORDER_DELETED) and drops these. */
const KEPT_AS_UNFILLED = ['pending', 'accepted'];
const DROPPED = ['rejected', 'removed', 'cancelled'];

/** The export's suggestion: the suggestion object plus its event. */
const exportedSelect = { ...suggestionSelect, event: { select: { id: true, slug: true, name: true } } } as const;

interface MySuggestionsRow {
  registrationDeadline: Date | null;
  matchingRunAt: Date | null;
  isParticipant: boolean;
  /** null unless the caller participates */
  toBeRecorded: SuggestionJson[] | null;
  toRecord: SuggestionJson[] | null;
}

/**
 * The event of a slug ($1), whether the caller ($2) participates, and (for a participant)
 * the suggestions for the caller's heats and those the caller records, as json arrays.
 */
const mySuggestions = sql(
  'matching_my_suggestions',
  `SELECT e."registrationDeadline", e."matchingRunAt", (me.id IS NOT NULL) AS "isParticipant",
          CASE WHEN me.id IS NOT NULL THEN ${suggestionsJson('"dancerId"', 'e.id', '$2')} END AS "toBeRecorded",
          CASE WHEN me.id IS NOT NULL THEN ${suggestionsJson('"recorderId"', 'e.id', '$2')} END AS "toRecord"
   FROM "Event" e
   LEFT JOIN "EventParticipant" me ON me."eventId" = e.id AND me."userId" = $2
   WHERE e.slug = $1`,
  { perCaller: 2 },
);

export interface MatchingSettings {
  /** accepting a suggestion needs a verified e-mail address, like POST /matches (REQUIRE_EMAIL_VERIFICATION) */
  requireEmailVerification: boolean;
}

/** What the suggestions use (built by src/container.ts). */
export interface SuggestionsDeps {
  db: PrismaClient;
  sql: SqlReader;
  notifier: Notifier;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  lock: MatchingLock;
  clock: Clock;
  /** accepting a suggestion creates or reuses the pair's match (the matches feature owns Match) */
  matches: Pick<MatchesService, 'createOrReuseAcceptedMatch' | 'acceptedMatchOfPair'>;
  settings: MatchingSettings;
}

/**
 * The recording suggestions a run leaves (RecordingSuggestion, owned by the matching feature):
 * each participant's view, the recorders' (and dancers') answers, and what the privacy feature
 * asks for (the export, an account deletion). Admin pins, removals and absences are
 * matching-people.service.ts's.
 */
export class SuggestionsService {
  constructor(private readonly deps: SuggestionsDeps) {}

  /**
   * The caller's view: who records my heats, which heats I record (every status). Check
   * order: event 404, participant 403. One statement (mySuggestions).
   */
  async listMine(actor: Actor, input: EventInput) {
    const [row] = await this.deps.sql.rows<MySuggestionsRow>(mySuggestions, [input.slug, userOf(actor).id]);
    if (!row) throw new AppError('EVENT_NOT_FOUND');
    if (!row.isParticipant) throw new AppError('NOT_PARTICIPANT');
    const views = (list: SuggestionJson[] | null) =>
      (list ?? []).map((v) => ({ ...v, createdAt: toDate(v.createdAt) }));
    return {
      toBeRecorded: views(row.toBeRecorded),
      toRecord: views(row.toRecord),
      registrationDeadline: row.registrationDeadline,
      matchingRunAt: row.matchingRunAt,
    };
  }

  /**
   * The recorder answers a suggestion (the dancer may reject it too). Check order: accepting needs a verified e-mail 403 (the
   * rule of POST /matches, checked first as there; rejecting does not), event 404, participant 403, suggestion
   * of this event 404 (unknown id; null = a malformed one), recorder 403 (dancer: rejecting only), a blocked
   * pair accepting 403 USER_BLOCKED (it stays pending). Transitions: pending →
   * accepted | rejected; repeating the current answer is a no-op (200); any other change →
   * 409. Accepting creates or reuses an accepted match between dancer and recorder with its
   * private room, in the same transaction; the dancer gets `match_accepted` after the commit
   * when a match became accepted. The transaction waits for a matching run of the event in
   * progress (shared advisory lock), so a run never replaces a suggestion being accepted.
   * A change is audited (recording_suggestion_accept / _reject); a no-op is not.
   */
  async decide(actor: Actor, input: DecisionInput) {
    const { id: suggestionId, status } = input;
    const recorder = userOf(actor);
    if (status === 'accepted' && this.deps.settings.requireEmailVerification && !recorder.emailVerified)
      throw new AppError('EMAIL_NOT_VERIFIED');
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const userId = recorder.id;
    await this.deps.eventAccess.assertParticipant(event.id, userId);
    if (suggestionId === null) throw new AppError('SUGGESTION_NOT_FOUND');
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.decideOnce(actor, event, suggestionId, status);
      } catch (err) {
        // Two suggestions of the same pair accepted at once: the second sees the first's match on retry.
        if (attempt < 2 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  private async decideOnce(actor: Actor, event: Event, suggestionId: number, status: Decision) {
    const userId = userOf(actor).id;
    const outcome = await this.deps.db.$transaction(
      (tx) => this.writeDecision(actor, tx, event, suggestionId, status),
      {
        timeout: 30_000,
        maxWait: 10_000,
      },
    );
    const view = await this.deps.db.recordingSuggestion.findUniqueOrThrow({
      where: { id: suggestionId },
      select: suggestionSelect,
    });
    const match = outcome.match
      ? {
          id: outcome.match.id,
          slug: outcome.match.slug,
          status: outcome.match.status,
          roomId: outcome.match.chatRoom?.id ?? null,
        }
      : status === 'accepted'
        ? await this.deps.matches.acceptedMatchOfPair(actor, {
            eventId: event.id,
            userAId: view.dancer.id,
            userBId: userId,
          })
        : null;
    if (!outcome.changed) return { ...view, match };
    await this.deps.audit.record(actor, {
      category: 'match',
      action: status === 'accepted' ? 'recording_suggestion_accept' : 'recording_suggestion_reject',
      resource: `event:${event.slug}`,
      metadata: {
        suggestionId,
        heatId: view.heat.id,
        dancerId: view.dancer.id,
        by: view.dancer.id === userId ? 'dancer' : 'recorder',
        ...(match ? { matchSlug: match.slug } : {}),
      },
    });
    if (outcome.match?.becameAccepted && view.recorder) {
      this.deps.notifier.toUser(view.dancer.id, 'match_accepted', {
        matchSlug: outcome.match.slug,
        event: { slug: event.slug, name: event.name },
        from: view.recorder,
      });
    }
    return { ...view, match };
  }

  private async writeDecision(
    actor: Actor,
    tx: Prisma.TransactionClient,
    event: Event,
    suggestionId: number,
    status: Decision,
  ) {
    const userId = userOf(actor).id;
    await this.deps.lock.holdSharedInTransaction(tx, event.id);
    const suggestion = await tx.recordingSuggestion.findFirst({ where: { id: suggestionId, eventId: event.id } });
    if (!suggestion) throw new AppError('SUGGESTION_NOT_FOUND');
    // Accepting is the recorder's; rejecting is open to the recorder and to the dancer.
    const mayAnswer =
      suggestion.recorderId === userId ||
      (status === 'rejected' && suggestion.dancerId === userId && suggestion.recorderId !== null);
    if (!mayAnswer) throw new AppError('NOT_RECORDER');
    if (suggestion.status === status) return { changed: false, match: null };
    if (suggestion.status !== 'pending') throw new AppError('SUGGESTION_NOT_PENDING');
    if (status === 'accepted' && (await isBlockedPair(tx, suggestion.dancerId, userId)))
      throw new AppError('USER_BLOCKED');
    const updated = await tx.recordingSuggestion.updateMany({
      where: { id: suggestion.id, status: 'pending' },
      data: { status, respondedAt: this.deps.clock.now() },
    });
    if (updated.count === 0) throw new AppError('SUGGESTION_NOT_PENDING');
    if (status === 'rejected') return { changed: true, match: null };
    const match = await this.deps.matches.createOrReuseAcceptedMatch(actor, {
      tx,
      eventId: event.id,
      userAId: suggestion.dancerId,
      userBId: userId,
      suggestionId: suggestion.id,
    });
    return { changed: true, match };
  }

  // -------------------------------------------------------------------------------------
  // Privacy (src/modules/privacy): the export and an account deletion

  /**
   * The data export: every suggestion of the user's heats (`asDancer`) and every one the user
   * records (`asRecorder`), any status, each the suggestion object plus its event.
   */
  async suggestionsOfUser(_actor: Actor, input: { userId: number }) {
    const { db } = this.deps;
    const orderBy = [{ eventId: 'asc' as const }, ...suggestionOrder];
    const [asDancer, asRecorder] = await Promise.all([
      db.recordingSuggestion.findMany({ where: { dancerId: input.userId }, select: exportedSelect, orderBy }),
      db.recordingSuggestion.findMany({ where: { recorderId: input.userId }, select: exportedSelect, orderBy }),
    ]);
    return { asDancer, asRecorder };
  }

  /**
   * Account deletion, inside the deletion's transaction (`input.tx`): what becomes of the
   * recording suggestions the deleted user records (those of the user's own heats go with the
   * heats, by cascade):
   * - `pending` (pinned ones too) and `accepted` ones become `not_found` without recorder, `why`
   *   and pin, with the reason RECORDER_DELETED (same id; a later run may fill the heat);
   * - `rejected`, `removed` and `cancelled` ones are deleted: no list shows them any more.
   * Others' recording counts and balances count only what stays `accepted`, so they may drop.
   * Answers how many suggestions were kept (as not_found) and deleted.
   */
  async releaseDeletedRecorder(_actor: Actor, input: { tx: Prisma.TransactionClient; recorderId: number }) {
    const { tx, recorderId } = input;
    const deleted = await tx.recordingSuggestion.deleteMany({ where: { recorderId, status: { in: DROPPED } } });
    const kept = await tx.recordingSuggestion.updateMany({
      where: { recorderId, status: { in: KEPT_AS_UNFILLED } },
      data: {
        status: 'not_found',
        recorderId: null,
        why: Prisma.DbNull,
        pinned: false,
        unfilledReason: RECORDER_DELETED,
        updatedAt: this.deps.clock.now(),
      },
    });
    return { kept: kept.count, deleted: deleted.count };
  }
}
