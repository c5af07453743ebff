import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { userObjectSelect } from '../../lib/user-summary.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { ChatService } from '../chat/chat.service.js';
import type { EventsService } from '../events/events.service.js';
import type { HeatsService } from '../heats/heats.service.js';
import type { MatchesService } from '../matches/matches.service.js';
import type { SuggestionsService } from '../matching/suggestions.service.js';
import type { MatchRatingsService } from '../matches/match-ratings.service.js';
import type { TransfersService } from '../webrtc/transfers.service.js';

/**
 * GET /users/me/export (docs/privacy.md): everything the service holds about the caller, as one
 * JSON document, each part read through the feature that owns it. Other people appear only as
 * user summaries (id, username, avatar, names) or briefs; no hash, token, code or counter of
 * anyone is ever selected.
 */

export interface DataExportDeps {
  prisma: PrismaClient;
  audit: ActivityLogService;
  events: Pick<EventsService, 'participationsOfUser'>;
  heats: Pick<HeatsService, 'heatsOfUser'>;
  chat: Pick<ChatService, 'messagesOfUser'>;
  matches: Pick<MatchesService, 'listMatches'>;
  ratings: Pick<MatchRatingsService, 'ratingsOfUser'>;
  suggestions: Pick<SuggestionsService, 'suggestionsOfUser'>;
  transfers: Pick<TransfersService, 'listOfUser'>;
  clock: Clock;
}

export class DataExportService {
  constructor(private readonly deps: DataExportDeps) {}

  /**
   * The caller's data: `{ exportedAt, user, participations, heats, messages, matches, ratingsGiven,
   * ratingsReceived, suggestions: { asDancer, asRecorder }, transfers, activity }`, every list
   * complete; the caller is the actor's user (401 AUTH_REQUIRED without one, 404 USER_NOT_FOUND for a
   * deleted account). Logged as auth/data_export (after the read, so the export does not hold its own entry).
   */
  async exportFor(actor: Actor, _input: Record<string, never> = {}) {
    const { prisma, audit, events, heats, chat, matches, ratings: matchRatings, transfers, clock } = this.deps;
    const userId = userOf(actor).id;
    const exportedAt = clock.now();
    const [user, participations, heatList, messages, matchList, ratings, suggestions, transferList, activity] =
      await Promise.all([
        prisma.user.findUnique({ where: { id: userId }, select: userObjectSelect }),
        events.participationsOfUser(userId),
        heats.heatsOfUser(actor, { userId }),
        chat.messagesOfUser(actor, { userId }),
        matches.listMatches(actor, {}),
        matchRatings.ratingsOfUser(actor, { userId }),
        this.deps.suggestions.suggestionsOfUser(actor, { userId }),
        transfers.listOfUser(actor, { userId }),
        audit.entriesOfUser(actor, { userId }),
      ]);
    if (!user) throw new AppError('USER_NOT_FOUND');
    await audit.record(actor, { category: 'auth', action: 'data_export', resource: `user:${userId}` });
    return {
      exportedAt,
      user,
      participations,
      heats: heatList,
      messages,
      matches: matchList,
      ratingsGiven: ratings.given,
      ratingsReceived: ratings.received,
      suggestions,
      transfers: transferList,
      activity,
    };
  }
}

/** `<username>-export-<YYYY-MM-DD>.json`, the UTC date of the export. */
export const exportFilename = (username: string, exportedAt: Date) =>
  `${username}-export-${exportedAt.toISOString().slice(0, 10)}.json`;
