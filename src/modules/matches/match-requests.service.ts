import type { ChatService } from '../chat/chat.service.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { RefundableLimiter } from '../../lib/flood-limit.js';
import { randomSlug } from '../../lib/ids.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { isBlockedPair, lockUserPair } from '../moderation/blocks.views.js';
import {
  findMemberMatch,
  LOCK_REQUESTER,
  lockPair,
  matchInclude,
  notification,
  toMatchView,
  TX_OPTIONS,
  type MatchWithRelations,
  type Tx,
} from './match-records.js';
import type { CreateMatchInput, MatchSlugInput } from './matches.schemas.js';
import type { MatchView } from './matches.views.js';

/*
 * A match request and its answer: POST /matches and PUT /matches/:slug/accept. Reading, deleting
 * and the writes other features ask for are matches.service.ts'.
 */

/** At most 20 pending outgoing requests per user (documented in matches.openapi.ts). */
export const MAX_PENDING_OUTGOING = 20;

export interface MatchRequestsSettings {
  requireEmailVerification: boolean;
  /** match requests per requester (config `matchRequests`: a token bucket) */
  requestLimit: RefundableLimiter;
}

/** What match requests use (built by src/container.ts). */
export interface MatchRequestsDeps {
  db: PrismaClient;
  notifier: Notifier;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  /** the chat feature creates the private room of an accepted match */
  chat: Pick<ChatService, 'createPrivateRoom'>;
  clock: Clock;
  settings: MatchRequestsSettings;
}

/** Match requests between two participants of an event, and their acceptance. */
export class MatchRequestsService {
  constructor(private readonly deps: MatchRequestsDeps) {}

  /**
   * A match request by the actor. Checks: event 404 → requester participates 403 → not oneself 400 →
   * target participates 400 → no block between the two 403 USER_BLOCKED (checked under the pair's
   * lock, which a block takes too: a request racing with a block is refused, or created and
   * then removed by the block) → at most 20 pending outgoing requests 429 (counted under a
   * per-requester advisory lock, so parallel requests cannot overshoot) → the requester's
   * request rate 429 MATCH_REQUESTS_RATE_LIMITED (a token bucket per requester, taken under
   * the same lock and given back when nothing was created, so request+cancel cycles cannot
   * flood a user with notifications and a refused duplicate costs nothing) → no match of the pair
   * in either direction 409 (the unique index Match_eventId_pair_key decides: P2002 → 409).
   * After the commit the target gets `match_request_received`. Audited as match/match_create
   * (also the refused duplicate).
   */
  async createMatch(actor: Actor, input: CreateMatchInput): Promise<MatchView> {
    const { db, eventAccess, audit, notifier } = this.deps;
    const requester = userOf(actor);
    const event = await eventAccess.getBySlug(input.eventSlug);
    await eventAccess.assertParticipant(event.id, requester.id);
    if (input.targetUserId === requester.id) throw new AppError('MATCH_SELF');
    if (!(await eventAccess.findParticipation(event.id, input.targetUserId)))
      throw new AppError('TARGET_NOT_PARTICIPANT');

    let match: MatchWithRelations;
    try {
      match = await db.$transaction(
        (tx) => this.insertRequest(tx, event.id, requester.id, input.targetUserId),
        TX_OPTIONS,
      );
    } catch (err) {
      if (isUniqueViolation(err) && !isUniqueViolation(err, 'slug')) {
        const metadata = { reason: 'duplicate', targetUserId: input.targetUserId };
        const resource = `event:${event.slug}`;
        await audit.record(actor, { category: 'match', action: 'match_create', success: false, resource, metadata });
        throw new AppError('MATCH_EXISTS');
      }
      throw err;
    }

    notifier.toUser(match.user2Id, 'match_request_received', notification(match, match.user1));
    const metadata = { matchId: match.id, eventId: event.id, targetUserId: match.user2Id };
    await audit.record(actor, { category: 'match', action: 'match_create', resource: `match:${match.slug}`, metadata });
    return toMatchView(match, requester.id);
  }

  /**
   * Accepts a match. Checks: member 404 → the target, not the requester 403 → pending 400. The
   * status change is a conditional update (status = 'pending'), so of two simultaneous accepts
   * exactly one wins; the private room is created in the same transaction. After the commit
   * the requester gets `match_accepted`. Audited as match/match_accept.
   */
  async acceptMatch(actor: Actor, input: MatchSlugInput): Promise<MatchView> {
    const { db, clock, notifier, audit } = this.deps;
    const userId = userOf(actor).id;
    const match = await db.$transaction(async (tx) => {
      const found = await findMemberMatch(tx, input.slug, userId);
      if (found.user1Id === userId) throw new AppError('NOT_MATCH_TARGET');
      if (found.status !== 'pending') throw new AppError('MATCH_NOT_PENDING');
      const updated = await tx.match.updateMany({
        where: { id: found.id, status: 'pending' },
        data: { status: 'accepted', respondedAt: clock.now() },
      });
      if (updated.count === 0) throw new AppError('MATCH_NOT_PENDING');
      await this.deps.chat.createPrivateRoom(actor, { tx, matchId: found.id });
      return tx.match.findUniqueOrThrow({ where: { id: found.id }, include: matchInclude });
    }, TX_OPTIONS);

    notifier.toUser(match.user1Id, 'match_accepted', notification(match, match.user2));
    const metadata = { matchId: match.id };
    await audit.record(actor, { category: 'match', action: 'match_accept', resource: `match:${match.slug}`, metadata });
    return toMatchView(match, userId);
  }

  private async insertRequest(
    tx: Tx,
    eventId: number,
    requesterId: number,
    targetUserId: number,
  ): Promise<MatchWithRelations> {
    const { requestLimit } = this.deps.settings;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_REQUESTER}::int, ${requesterId}::int)`;
    // the block's lock: a block of the pair commits either before this check or after this request
    await lockUserPair(tx, requesterId, targetUserId);
    if (await isBlockedPair(tx, requesterId, targetUserId)) throw new AppError('USER_BLOCKED');
    const pending = await tx.match.count({ where: { user1Id: requesterId, status: 'pending' } });
    if (pending >= MAX_PENDING_OUTGOING) {
      throw new AppError('TOO_MANY_PENDING_MATCHES', {
        message: `You can have at most ${MAX_PENDING_OUTGOING} pending match requests`,
      });
    }
    if (!requestLimit.take(requesterId)) {
      // every 429 says when to come back (the bucket holds a request again)
      const retryAfter = String(requestLimit.retryAfterSeconds(requesterId));
      throw new AppError('MATCH_REQUESTS_RATE_LIMITED', { headers: { 'Retry-After': retryAfter } });
    }
    try {
      await lockPair(tx, eventId, requesterId, targetUserId);
      return await tx.match.create({
        data: {
          slug: randomSlug(),
          eventId,
          user1Id: requesterId,
          user2Id: targetUserId,
          status: 'pending',
          source: 'manual',
        },
        include: matchInclude,
      });
    } catch (err) {
      requestLimit.refund(requesterId);
      throw err;
    }
  }
}
