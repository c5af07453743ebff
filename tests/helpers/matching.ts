import { prisma } from './db';
import type { Event } from '../../src/generated/prisma/client';
import {
  competitionTypeId,
  createAdmin,
  createEvent,
  createUser,
  divisionId,
  joinEvent,
  type EventOverrides,
  type TestUser,
} from './factories';
import { api } from './server';

/** Hand-built matching scenarios: participants with a location, heats inserted directly. */
export interface PersonOptions {
  city?: string | null;
  country?: string | null;
  optOut?: boolean;
}

export async function person(event: Event, options: PersonOptions = {}): Promise<TestUser> {
  const u = await createUser({ city: options.city ?? null, country: options.country ?? null });
  await joinEvent(u.user, event, { recorderOptOut: options.optOut ?? false });
  return u;
}

export interface HeatSpec {
  division?: string;
  type?: string;
  n: number;
  role?: 'Leader' | 'Follower' | null;
}

export async function heat(u: TestUser, event: Event, spec: HeatSpec) {
  return prisma.heat.create({
    data: {
      userId: u.user.id,
      eventId: event.id,
      divisionId: await divisionId(spec.division ?? 'NOV'),
      competitionTypeId: await competitionTypeId(spec.type ?? 'J&J'),
      heatNumber: spec.n,
      role: spec.role ?? null,
    },
  });
}

export async function scenario(overrides: EventOverrides = {}) {
  const event = await createEvent(overrides);
  const admin = await createAdmin();
  return { event, admin };
}

/** POST /events/:slug/run-matching as the admin; expects 201 and a successful run. */
export async function runMatching(event: Event, admin: TestUser) {
  const res = await api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth);
  if (res.status !== 201 || res.body.data.status !== 'success') {
    throw new Error(`run failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.data as {
    id: string;
    heatsTotal: number;
    heatsAssigned: number;
    heatsUnassigned: number;
    status: string;
    reuse: { previous: number; kept: number; added: number; dropped: number; invalid: number };
  };
}

export interface SuggestionBody {
  id: number;
  heat: {
    id: number;
    heatNumber: number;
    division: { abbreviation: string };
    competitionType: { abbreviation: string };
  };
  dancer: { id: number; username: string };
  recorder: { id: number; username: string } | null;
  status: string;
  originRunId: string;
  createdAt: string;
}

export async function mySuggestions(event: Event, u: TestUser) {
  const res = await api().get(`/api/events/${event.slug}/match-suggestions`).set('Authorization', u.auth);
  if (res.status !== 200) throw new Error(`match-suggestions: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as {
    toBeRecorded: SuggestionBody[];
    toRecord: SuggestionBody[];
    registrationDeadline: string | null;
    matchingRunAt: string | null;
  };
}

/** The current (pending or accepted) recorder id of a heat, read from the database. */
export async function recorderOf(heatId: number): Promise<number | null | undefined> {
  const rows = await prisma.recordingSuggestion.findMany({
    where: { heatId, status: { in: ['pending', 'accepted', 'not_found'] } },
  });
  if (rows.length > 1) throw new Error(`heat ${heatId} has ${rows.length} live suggestions`);
  return rows[0]?.recorderId;
}

export async function decide(event: Event, u: TestUser, suggestionId: number, status: string) {
  return api()
    .put(`/api/events/${event.slug}/match-suggestions/${suggestionId}/status`)
    .set('Authorization', u.auth)
    .send({ status });
}
