/**
 * The weekend the HTTP benchmark reads: written straight into a freshly migrated database with
 * `pg` (multi-row inserts from arrays), reproducible from a fixed seed. Returns the slugs and
 * ids the benchmark needs. Matching is run afterwards through the CLI, like an operator would.
 */
import type { Client } from 'pg';
import { mulberry32 } from '../lib/generate-event.js';
import { warmUpPaths } from '../../src/lib/warm-up.js';
import type { RateTarget } from './fixed-rate.js';

/** The size of a seeded weekend (bench:event-day seeds the same weekend around bigger events). */
export interface WeekendShape {
  users: number;
  events: number;
  /** the big event: every one of users 1..bigEventParticipants participates */
  bigEventParticipants: number;
  /** users 1..callers joined the big event and 4 more (the bench callers) */
  callers: number;
  eventMessages: number;
  matches: number;
  /** matches are between users from here on (user 1 has 10 of them) */
  matchBase: number;
  matchMessages: number;
  /**
   * the first user's id (default: the table's sequence as it is, 1 in a new database); users
   * 1..n above are counted from it
   */
  firstUserId?: number;
}

export const WEEKEND: WeekendShape = {
  users: 1_600,
  events: 30,
  /** the big event: every one of users 1..1 500 participates */
  bigEventParticipants: 1_500,
  /** users 1..50 joined the big event and 4 more (the bench callers) */
  callers: 50,
  eventMessages: 18_000,
  matches: 300,
  matchBase: 700,
  matchMessages: 2_000,
};

export const BIG_EVENT_SLUG = 'bench-weekend';

const CITIES = [
  ['Warsaw', 'Poland'],
  ['Krakow', 'Poland'],
  ['Berlin', 'Germany'],
  ['Paris', 'France'],
  ['London', 'UK'],
  ['Seattle', 'USA'],
  ['Stockholm', 'Sweden'],
  ['Toronto', 'Canada'],
] as const;

const DAY = 86_400_000;

async function insertRows(
  db: Client,
  table: string,
  columns: Record<string, string>,
  rows: unknown[][],
): Promise<void> {
  const names = Object.keys(columns);
  const arrays = names.map((_, i) => rows.map((r) => r[i]));
  const list = names.map((n) => `"${n}"`).join(', ');
  const unnest = names.map((n, i) => `$${i + 1}::${columns[n]}[]`).join(', ');
  await db.query(`INSERT INTO "${table}" (${list}) SELECT * FROM unnest(${unnest})`, arrays);
}

/** The hot reads the benchmark measures and its EXPLAIN script analyses (`slug`: the big event). */
export function hotReadPaths(slug: string): string[] {
  return [...warmUpPaths(slug), '/api/health'];
}

/** A phone's polling over a weekend: the weight of each hot read (by its path template). */
const POLL_WEIGHTS: Record<string, number> = {
  '/api/events': 5,
  '/api/events/:slug/messages': 4,
  '/api/dashboard': 3,
  '/api/matches': 2,
  '/api/events/:slug/match-suggestions': 2,
  '/api/users/me': 2,
  '/api/events/:slug/details': 1,
  '/api/health': 1,
};

/**
 * The fixed-rate mix of reads, shared by bench:http and bench:event-day: the service's own list
 * of hot reads (src/lib/warm-up.ts, which its start-up warm-up sends) and the health check.
 */
export function hotReadMix(slug: string): RateTarget[] {
  return hotReadPaths(':slug').map((template) => ({
    name: `GET ${template}`,
    path: template.replace(':slug', slug),
    weight: POLL_WEIGHTS[template],
    auth: template !== '/api/health',
  }));
}

export interface SeededWeekend {
  bigEventId: number;
  bigEventSlug: string;
  /** user ids that joined 5 events, the big one included */
  callerIds: number[];
  /** every participant of the big event */
  participantIds: number[];
}

/**
 * Seeds (to `shape`) users, events, participations, heats, chat rooms and messages, matches with
 * messages and ratings. Every date is relative to `now`, the run's own time by default: the big
 * event starts two days later, so it is the busiest current event, the one the service's start-up
 * warm-up reads (src/lib/warm-up.ts). Seeded at a fixed 2026-11-24 until 2026-12-08, it had ended
 * more than a week before the runs of 2026-12-05 on, and the warm-up read a 59-participant event
 * instead (docs/event-day.md).
 */
export async function seedWeekend(db: Client, now = new Date(), shape: WeekendShape = WEEKEND): Promise<SeededWeekend> {
  const rnd = mulberry32(14);
  const int = (n: number) => Math.floor(rnd() * n);
  const t = now.getTime();
  await db.query('BEGIN');

  if (shape.firstUserId !== undefined)
    await db.query(`SELECT setval(pg_get_serial_sequence('"User"', 'id'), $1, false)`, [shape.firstUserId]);
  const users = Array.from({ length: shape.users }, (_, i) => {
    const n = i + 1;
    const [city, country] = CITIES[int(CITIES.length)];
    const name = `dancer${String(n).padStart(4, '0')}`;
    return [
      name,
      `${name}@bench.test`,
      'not-a-hash',
      `https://api.dicebear.com/9.x/avataaars/svg?seed=${name}`,
      `First${n}`,
      `Last${n}`,
      city,
      country,
      true,
      new Date(t - 90 * DAY + n * 1000),
    ];
  });
  await insertRows(
    db,
    'User',
    {
      username: 'text',
      email: 'text',
      passwordHash: 'text',
      avatar: 'text',
      firstName: 'text',
      lastName: 'text',
      city: 'text',
      country: 'text',
      emailVerified: 'bool',
      createdAt: 'timestamptz',
    },
    users,
  );
  const userIds = (await db.query<{ id: number }>('SELECT id FROM "User" ORDER BY id')).rows.map((r) => r.id);

  const events = Array.from({ length: shape.events }, (_, i) => {
    const start = t + (i === 0 ? 2 : i * 7 - 40) * DAY;
    return [
      i === 0 ? BIG_EVENT_SLUG : `bench-event-${i + 1}`,
      i === 0 ? 'Bench Weekend Swing Open' : `Swing Weekend ${i + 1}`,
      `${CITIES[i % CITIES.length][0]} Ballroom`,
      new Date(start),
      new Date(start + 2 * DAY),
      i % 3 === 0 ? null : `${1000 + i}`,
      i % 4 === 0 ? null : `Three days of West Coast Swing, workshops and competitions (${i + 1}).`,
      i === 0 ? new Date(t - DAY) : null,
      new Date(t - 100 * DAY + i * DAY),
    ];
  });
  await insertRows(
    db,
    'Event',
    {
      slug: 'text',
      name: 'text',
      location: 'text',
      startDate: 'timestamptz',
      endDate: 'timestamptz',
      worldRegistryId: 'text',
      description: 'text',
      registrationDeadline: 'timestamptz',
      createdAt: 'timestamptz',
    },
    events,
  );
  const eventIds = (await db.query<{ id: number }>('SELECT id FROM "Event" ORDER BY id')).rows.map((r) => r.id);
  const bigEventId = eventIds[0];

  // Participations: 1 500 at the big event; callers at 4 more; 20-60 at every other event.
  const joined = new Set<string>();
  const participations: unknown[][] = [];
  const join = (userId: number, eventId: number) => {
    const key = `${userId}:${eventId}`;
    if (joined.has(key)) return;
    joined.add(key);
    participations.push([userId, eventId, new Date(t - int(60 * DAY))]);
  };
  for (let i = 0; i < shape.bigEventParticipants; i++) join(userIds[i], bigEventId);
  const callerIds = userIds.slice(0, shape.callers);
  for (const id of callerIds) for (const e of eventIds.slice(1, 5)) join(id, e);
  for (const e of eventIds.slice(1)) {
    const n = 20 + int(41);
    for (let k = 0; k < n; k++) join(userIds[shape.callers + int(shape.users - shape.callers)], e);
  }
  await insertRows(
    db,
    'EventParticipant',
    { userId: 'int4', eventId: 'int4', joinedAt: 'timestamptz' },
    participations,
  );
  await db.query(
    `UPDATE "Event" e SET "participantsCount" = (SELECT count(*) FROM "EventParticipant" p WHERE p."eventId" = e.id)`,
  );

  // Heats of the big event: 0-3 per participant, distinct divisions.
  const heats: unknown[][] = [];
  for (let i = 0; i < shape.bigEventParticipants; i++) {
    const count = i < shape.callers ? 1 + int(3) : int(4);
    const first = int(6);
    for (let j = 0; j < count; j++) {
      heats.push([
        userIds[i],
        bigEventId,
        1 + ((first + j) % 6),
        1 + int(2),
        1 + int(9),
        rnd() < 0.5 ? 'Leader' : 'Follower',
      ]);
    }
  }
  await insertRows(
    db,
    'Heat',
    {
      userId: 'int4',
      eventId: 'int4',
      divisionId: 'int4',
      competitionTypeId: 'int4',
      heatNumber: 'int4',
      role: 'text',
    },
    heats,
  );

  // The event chat rooms and their history (most of it at the big event).
  await db.query(`INSERT INTO "ChatRoom" ("eventId", type) SELECT id, 'event' FROM "Event"`);
  const rooms = new Map(
    (await db.query<{ id: number; eventId: number }>(`SELECT id, "eventId" FROM "ChatRoom"`)).rows.map((r) => [
      r.eventId,
      r.id,
    ]),
  );
  const messages: unknown[][] = [];
  for (let k = 0; k < shape.eventMessages; k++) {
    const big = k % 6 !== 0;
    const eventId = big ? bigEventId : eventIds[1 + int(eventIds.length - 1)];
    messages.push([
      rooms.get(eventId),
      userIds[int(shape.bigEventParticipants)],
      `Message ${k}: see you on the floor at the next heat!`,
      new Date(t - (shape.eventMessages - k) * 20_000),
    ]);
  }

  // 300 matches at the big event; user 1 (the main caller) requested 5 and received 5.
  const matches: unknown[][] = [];
  const pairs: [number, number][] = [];
  const base = shape.matchBase;
  for (let k = 0; k < 10; k++) pairs.push(k < 5 ? [userIds[0], userIds[base + k]] : [userIds[base + k], userIds[0]]);
  for (let k = 0; pairs.length < shape.matches; k++)
    pairs.push([userIds[base + 20 + 2 * k], userIds[base + 21 + 2 * k]]);
  const statusOf = (k: number) =>
    k < 10
      ? ['pending', 'accepted', 'completed', 'pending', 'accepted'][k % 5]
      : ['pending', 'accepted', 'completed'][k % 3];
  pairs.forEach(([u1, u2], k) => {
    const status = statusOf(k);
    const created = new Date(t - (shape.matches - k) * 60_000);
    matches.push([
      `bench-match-${k + 1}`,
      bigEventId,
      u1,
      u2,
      status,
      created,
      status === 'pending' ? null : new Date(created.getTime() + 30_000),
    ]);
  });
  await insertRows(
    db,
    'Match',
    {
      slug: 'text',
      eventId: 'int4',
      user1Id: 'int4',
      user2Id: 'int4',
      status: 'text',
      createdAt: 'timestamptz',
      respondedAt: 'timestamptz',
    },
    matches,
  );
  const open = (
    await db.query<{ id: number; user1Id: number; user2Id: number; status: string }>(
      `SELECT id, "user1Id", "user2Id", status FROM "Match" WHERE status <> 'pending' ORDER BY id`,
    )
  ).rows;
  await db.query(
    `INSERT INTO "ChatRoom" ("matchId", type) SELECT id, 'private' FROM "Match" WHERE status <> 'pending'`,
  );
  const matchRooms = new Map(
    (
      await db.query<{ id: number; matchId: number }>(
        `SELECT id, "matchId" FROM "ChatRoom" WHERE "matchId" IS NOT NULL`,
      )
    ).rows.map((r) => [r.matchId, r.id]),
  );
  for (let k = 0; k < shape.matchMessages; k++) {
    const m = open[k % open.length];
    messages.push([
      matchRooms.get(m.id),
      k % 2 ? m.user1Id : m.user2Id,
      `Private ${k}: your heat is after lunch`,
      new Date(t - (shape.matchMessages - k) * 30_000),
    ]);
  }
  messages.sort((a, b) => (a[3] as Date).getTime() - (b[3] as Date).getTime());
  await insertRows(
    db,
    'Message',
    { roomId: 'int4', userId: 'int4', content: 'text', createdAt: 'timestamptz' },
    messages,
  );

  const ratings: unknown[][] = [];
  for (const m of open.filter((x) => x.status === 'completed')) {
    ratings.push([m.id, m.user1Id, m.user2Id, bigEventId, 3 + int(3), 'Great filming, thanks!', true]);
    if (rnd() < 0.7) ratings.push([m.id, m.user2Id, m.user1Id, bigEventId, 3 + int(3), null, rnd() < 0.8]);
  }
  await insertRows(
    db,
    'Rating',
    {
      matchId: 'int4',
      raterId: 'int4',
      ratedId: 'int4',
      eventId: 'int4',
      score: 'int4',
      comment: 'text',
      wouldCollaborateAgain: 'bool',
    },
    ratings,
  );
  await db.query('COMMIT');
  await db.query('ANALYZE');
  return {
    bigEventId,
    bigEventSlug: BIG_EVENT_SLUG,
    callerIds,
    participantIds: userIds.slice(0, shape.bigEventParticipants),
  };
}
