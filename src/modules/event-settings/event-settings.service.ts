import type { Prisma } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { CheckinService } from '../events/checkin.service.js';
import type { EventAccess } from '../events/event-access.js';
import type { EventsService } from '../events/events.service.js';
import type { ReferenceData } from '../../lib/reference-data.js';
import {
  knownScheduleDivisions,
  type CompetitorNumberInput,
  type RecorderOptOutInput,
  type RegistrationDeadlineInput,
  type ScheduleConfigInput,
} from './event-settings.schemas.js';

/**
 * Per-event settings: the participant's own competitor number and recorder opt-out, and the
 * admin-only registration deadline and schedule configuration read by matching. Each method
 * answers the updated setting only and records it in the activity log. Owns no table: the
 * settings are columns of Event and EventParticipant, written through the events feature.
 */
export interface EventSettingsDeps {
  audit: Pick<ActivityLogService, 'record'>;
  eventAccess: Pick<EventAccess, 'getBySlug'>;
  reference: Pick<ReferenceData, 'divisionIds'>;
  /** the writes of Event and EventParticipant (owned by the events feature) */
  events: Pick<EventsService, 'setRegistrationDeadline' | 'setScheduleConfig'>;
  checkin: Pick<CheckinService, 'updateParticipation'>;
}

export class EventSettingsService {
  private readonly audit: Pick<ActivityLogService, 'record'>;
  private readonly eventAccess: Pick<EventAccess, 'getBySlug'>;

  constructor(private readonly deps: EventSettingsDeps) {
    ({ audit: this.audit, eventAccess: this.eventAccess } = deps);
  }

  /**
   * Sets (or clears with null) the caller's competitor number. Checks: signed in 401 → event 404 →
   * participation 403. Numbers are not unique per event. Audited as event/competitor_number_update.
   */
  async setCompetitorNumber(actor: Actor, { slug, competitorNumber }: CompetitorNumberInput) {
    await this.updateOwnParticipation(actor, slug, { competitorNumber });
    const setting = { competitorNumber };
    await this.audit.record(actor, {
      category: 'event',
      action: 'competitor_number_update',
      resource: `event:${slug}`,
      metadata: setting,
    });
    return setting;
  }

  /**
   * Sets the caller's recorder opt-out. Checks: signed in 401 → event 404 → participation 403.
   * Audited as event/recorder_opt_out_update.
   */
  async setRecorderOptOut(actor: Actor, { slug, optOut }: RecorderOptOutInput) {
    await this.updateOwnParticipation(actor, slug, { recorderOptOut: optOut });
    const setting = { recorderOptOut: optOut };
    await this.audit.record(actor, {
      category: 'event',
      action: 'recorder_opt_out_update',
      resource: `event:${slug}`,
      metadata: setting,
    });
    return setting;
  }

  /**
   * Sets (or clears) the event's heat registration deadline (admins; the router checks the
   * role). Checks: event 404. Audited as admin/registration_deadline_update with the previous value.
   */
  async setRegistrationDeadline(actor: Actor, { slug, registrationDeadline: deadline }: RegistrationDeadlineInput) {
    const event = await this.eventAccess.getBySlug(slug);
    const updated = await this.deps.events.setRegistrationDeadline(actor, {
      eventId: event.id,
      registrationDeadline: deadline,
    });
    const setting = { registrationDeadline: updated.registrationDeadline };
    await this.audit.record(actor, {
      category: 'admin',
      action: 'registration_deadline_update',
      resource: `event:${slug}`,
      metadata: {
        previous: event.registrationDeadline?.toISOString() ?? null,
        registrationDeadline: setting.registrationDeadline?.toISOString() ?? null,
      },
    });
    return setting;
  }

  /**
   * Sets (or clears) which divisions share a time slot (admins; the router checks the role).
   * Checks: unknown divisions 400 (the end of the body check, knownScheduleDivisions) → event 404.
   * Slots are stored sorted by order; null is stored as SQL NULL (Prisma.DbNull), never the JSON
   * value null. Audited as admin/schedule_config_update.
   */
  async setScheduleConfig(actor: Actor, { slug, scheduleConfig: given }: ScheduleConfigInput) {
    knownScheduleDivisions(given, await this.deps.reference.divisionIds());
    const scheduleConfig = given && { slots: [...given.slots].sort((a, b) => a.order - b.order) };
    const event = await this.eventAccess.getBySlug(slug);
    await this.deps.events.setScheduleConfig(actor, {
      eventId: event.id,
      scheduleConfig: scheduleConfig as unknown as Prisma.InputJsonValue | null,
    });
    await this.audit.record(actor, {
      category: 'admin',
      action: 'schedule_config_update',
      resource: `event:${slug}`,
      metadata: { scheduleConfig: scheduleConfig as unknown as Prisma.InputJsonValue },
    });
    return { scheduleConfig };
  }

  /** Updates the caller's participation row; event 404; no row (not a participant) → 403. */
  private async updateOwnParticipation(
    actor: Actor,
    slug: string,
    settings: { competitorNumber?: string | null; recorderOptOut?: boolean },
  ) {
    const event = await this.eventAccess.getBySlug(slug);
    await this.deps.checkin.updateParticipation(actor, { eventId: event.id, userId: userOf(actor).id, settings });
  }
}
