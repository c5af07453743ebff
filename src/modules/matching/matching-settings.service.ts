import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError, validationFailed } from '../../lib/errors.js';
import type { ReferenceData } from '../../lib/reference-data.js';
import type { ViewOf } from '../../lib/view.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { readMatchingSettings, unavailableEntries, type EventMatchingSettingsView } from './matching.loader.js';
import type { MatchingLock } from './matching.lock.js';
import {
  mergeEntries,
  unknownReferenceDetails,
  type MatchingPeopleEventInput,
  type MatchingSettingsRequest,
  type PreferencesRequest,
} from './matching-people.schemas.js';
import type { recordingPreferencesView } from './matching.views.js';

type RecordingPreferences = ViewOf<typeof recordingPreferencesView>;

/** What the matching settings use (built by src/container.ts). */
export interface MatchingSettingsDeps {
  db: PrismaClient;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  lock: MatchingLock;
  referenceData: ReferenceData;
}

/**
 * Fair matching's settings (docs/fair-matching.md): the event's matching settings and a
 * participant's recording preferences, what a run may ask of whom. Owns EventMatchingSettings;
 * the preference columns of EventParticipant (maxRecordings, unavailable) are written through
 * the events feature's EventAccess. Writes hold the
 * event's shared matching lock, so they never interleave with a run. The admins' pins, removals
 * and no-show marks are matching-people.service.ts'.
 */
export class MatchingSettingsService {
  constructor(private readonly deps: MatchingSettingsDeps) {}

  /** The event's settings. Check order: event 404 → 403 NOT_PARTICIPANT (admins need not participate). */
  async getSettings(actor: Actor, input: MatchingPeopleEventInput): Promise<EventMatchingSettingsView> {
    const user = userOf(actor);
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    if (!user.isAdmin) await this.deps.eventAccess.assertParticipant(event.id, user.id);
    return readMatchingSettings(this.deps.db, event.id);
  }

  /**
   * Partial update of the event's settings (the router already checked admin and each field):
   * none of the four given 400 → event 404, then all four after the change. Audited as
   * admin/matching_settings_update with the previous and the new values.
   */
  async updateSettings(actor: Actor, input: MatchingSettingsRequest): Promise<EventMatchingSettingsView> {
    const { db } = this.deps;
    const { slug, ...given } = input;
    const changes = definedOnly(given);
    if (Object.keys(changes).length === 0)
      throw validationFailed([
        {
          field: 'body',
          message: 'Give at least one of bufferBefore, bufferAfter, maxRecordingsPerPerson, optOutMode',
        },
      ]);
    const event = await this.deps.eventAccess.getBySlug(slug);
    const { previous, next } = await db.$transaction(async (tx) => {
      await this.deps.lock.holdSharedInTransaction(tx, event.id);
      await tx.eventMatchingSettings.upsert({
        where: { eventId: event.id },
        create: { eventId: event.id },
        update: {},
      });
      await tx.$queryRaw`SELECT 1 FROM "EventMatchingSettings" WHERE "eventId" = ${event.id} FOR UPDATE`;
      const before = await readMatchingSettings(tx, event.id);
      await tx.eventMatchingSettings.update({ where: { eventId: event.id }, data: changes });
      return { previous: before, next: await readMatchingSettings(tx, event.id) };
    });
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'matching_settings_update',
      resource: `event:${event.slug}`,
      metadata: { previous: { ...previous }, next: { ...next } },
    });
    return next;
  }

  // ---- preferences ----------------------------------------------------------------------

  /** The caller's own preferences. Check order: event 404 → 403 NOT_PARTICIPANT (admins too). */
  async getPreferences(actor: Actor, input: MatchingPeopleEventInput) {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const p = await this.deps.eventAccess.assertParticipant(event.id, userOf(actor).id);
    return preferencesView(p);
  }

  /**
   * Partial update of the caller's preferences (each field already validated). Check order:
   * neither field given 400 → unknown competition type or division ids 400 (details in the
   * order given) → event 404 → 403 NOT_PARTICIPANT → maxRecordings above the event's current
   * maxRecordingsPerPerson 400. Identical entries are merged and the list sorted (mergeEntries).
   * Audited as event/recording_preferences_update.
   */
  async updatePreferences(actor: Actor, input: PreferencesRequest) {
    const { db, referenceData } = this.deps;
    const userId = userOf(actor).id;
    const { maxRecordings } = input;
    if (maxRecordings === undefined && input.unavailable === undefined)
      throw validationFailed([{ field: 'body', message: 'Give maxRecordings and/or unavailable' }]);
    if (input.unavailable !== undefined) {
      const [divisions, competitionTypes] = await Promise.all([
        referenceData.divisionIds(),
        referenceData.competitionTypeIds(),
      ]);
      const unknown = unknownReferenceDetails(input.unavailable, { divisions, competitionTypes });
      if (unknown.length) throw validationFailed(unknown);
    }
    const unavailable = input.unavailable && mergeEntries(input.unavailable);
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    await this.deps.eventAccess.assertParticipant(event.id, userId);
    const updated = await db.$transaction(async (tx) => {
      await this.deps.lock.holdSharedInTransaction(tx, event.id);
      const settings = await readMatchingSettings(tx, event.id);
      if (maxRecordings !== undefined && maxRecordings !== null && maxRecordings > settings.maxRecordingsPerPerson)
        throw validationFailed([
          {
            field: 'maxRecordings',
            message: `maxRecordings must be at most ${settings.maxRecordingsPerPerson} (the event's maximum)`,
          },
        ]);
      const data: Prisma.EventParticipantUpdateInput = {};
      if (maxRecordings !== undefined) data.maxRecordings = maxRecordings;
      if (unavailable !== undefined) data.unavailable = unavailable as unknown as Prisma.InputJsonValue;
      const row = await this.deps.eventAccess.setRecordingPreferences(event.id, userId, data, tx);
      if (!row) throw new AppError('NOT_PARTICIPANT');
      return row;
    });
    const view = preferencesView(updated);
    await this.deps.audit.record(actor, {
      category: 'event',
      action: 'recording_preferences_update',
      resource: `event:${event.slug}`,
      metadata: { maxRecordings: view.maxRecordings, unavailable: view.unavailable.map((e) => ({ ...e })) },
    });
    return view;
  }
}

function preferencesView(p: { maxRecordings: number | null; unavailable: unknown }): RecordingPreferences {
  return { maxRecordings: p.maxRecordings, unavailable: unavailableEntries(p.unavailable) };
}

/** The fields of a partial update that were given (an absent optional field is undefined). */
function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;
}
