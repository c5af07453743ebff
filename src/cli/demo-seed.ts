import { randomBytes } from 'node:crypto';
import type { Container } from '../container.js';
import { systemActor, type Actor } from '../lib/actor.js';
import type { AuthUser } from '../lib/auth.js';
import { AppError } from '../lib/errors.js';
import type { HeatInput } from '../modules/heats/heats.schemas.js';

/**
 * `demo:seed`: a realistic event to try the service without the web app (docs/operations.md,
 * "A first hour"): an admin, an event two weeks ahead with 40 dancers from several cities,
 * checked in, each with heats, and a matching run. Every row is made through the services, as
 * the API would make it. Refused in production; refused when the demo admin exists already.
 * The admin's and the dancers' password is generated and printed, never a constant.
 */

export const DEMO_ADMIN_EMAIL = 'demo-admin@example.com';
export const DEMO_DANCERS = 40;

const CITIES: [city: string, country: string][] = [
  ['Warsaw', 'Poland'],
  ['Kraków', 'Poland'],
  ['Berlin', 'Germany'],
  ['Prague', 'Czechia'],
  ['Vienna', 'Austria'],
  ['Budapest', 'Hungary'],
];
const FIRST_NAMES = [
  'Anna',
  'Marek',
  'Julia',
  'Tomasz',
  'Lena',
  'Jonas',
  'Eva',
  'Petr',
  'Sofia',
  'Max',
  'Klara',
  'Adam',
  'Mia',
  'Luca',
  'Zofia',
  'Felix',
  'Hana',
  'Pavel',
  'Ida',
  'Bence',
];
const LAST_NAMES = [
  'Nowak',
  'Kowalska',
  'Schmidt',
  'Novák',
  'Huber',
  'Nagy',
  'Wiśniewska',
  'Weber',
  'Svoboda',
  'Kovács',
];

export interface DemoSeedResult {
  admin: { email: string; password: string };
  dancers: { count: number; password: string; example: string };
  event: { slug: string; name: string };
  matching: { runId: string; status: string };
}

/** A small deterministic generator (same demo every time, apart from the passwords and slug). */
function sequence(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

/** A dancer acting through the services, as their own request would (the seed's fresh accounts: token version 0). */
const userActor = (user: Omit<AuthUser, 'tokenVersion'>): Actor => ({
  user: { ...user, tokenVersion: 0 },
  userId: user.id,
  username: user.username,
  ip: null,
  method: 'cli',
  path: null,
});

export async function seedDemo(
  c: Pick<Container, 'config' | 'operatorAccounts' | 'events' | 'checkin' | 'heats' | 'matching'>,
): Promise<DemoSeedResult> {
  if (c.config.isProduction)
    throw new AppError('BAD_REQUEST', { message: 'demo:seed refuses to run in production (NODE_ENV=production)' });
  const actor = systemActor('cli');
  const adminPassword = randomBytes(9).toString('base64url');
  const dancerPassword = randomBytes(9).toString('base64url');
  let admin;
  try {
    admin = await c.operatorAccounts.createAccount(actor, {
      email: DEMO_ADMIN_EMAIL,
      username: 'demo_admin',
      password: adminPassword,
      isAdmin: true,
      firstName: 'Demo',
      lastName: 'Organiser',
    });
  } catch (err) {
    if (err instanceof AppError && (err.code === 'EMAIL_TAKEN' || err.code === 'USERNAME_TAKEN')) {
      throw new AppError('CONFLICT', {
        message: `The demo data exists already (${DEMO_ADMIN_EMAIL}); restore a backup or use a fresh database to seed it again`,
      });
    }
    throw err;
  }
  const start = new Date(Date.now() + 14 * 86_400_000);
  start.setUTCHours(10, 0, 0, 0);
  const event = await c.events.create(actor, {
    name: 'Demo Swing Weekend',
    location: 'Warsaw, Poland',
    startDate: start,
    endDate: new Date(start.getTime() + 2 * 86_400_000 + 8 * 3_600_000),
    worldRegistryId: null,
    description: 'Made by demo:seed: 40 dancers from six cities with their Jack & Jill and Strictly heats.',
  });
  const details = await c.events.getDetails(userActor(admin), { slug: event.slug });
  const token = details.checkin!.token;
  const divisions = (await c.heats.divisions(actor)).slice(0, 4);
  const [jackAndJill, strictly] = await c.heats.competitionTypes(actor);
  const pick = sequence(2026);
  let example = '';
  for (let i = 0; i < DEMO_DANCERS; i++) {
    const [city, country] = CITIES[i % CITIES.length];
    const firstName = FIRST_NAMES[i % FIRST_NAMES.length];
    const lastName = LAST_NAMES[pick(LAST_NAMES.length)];
    const username = `demo_${firstName.toLowerCase()}_${i + 1}`;
    const email = `${username}@example.com`;
    example ||= email;
    const dancer = await c.operatorAccounts.createAccount(actor, {
      email,
      username,
      password: dancerPassword,
      firstName,
      lastName,
      city,
      country,
    });
    await c.checkin.checkin(userActor(dancer), { token });
    const role = i % 2 === 0 ? 'Leader' : 'Follower';
    const division = divisions[pick(divisions.length)];
    const heats: HeatInput[] = [
      { divisionId: division.id, competitionTypeId: jackAndJill.id, heatNumber: 1 + pick(6), role },
    ];
    if (i % 3 === 0)
      heats.push({ divisionId: division.id, competitionTypeId: strictly.id, heatNumber: 1 + pick(4), role });
    await c.heats.replaceHeats(userActor(dancer), { slug: event.slug, heats });
  }
  const run = await c.matching.runNow(actor, { slug: event.slug });
  return {
    admin: { email: DEMO_ADMIN_EMAIL, password: adminPassword },
    dancers: { count: DEMO_DANCERS, password: dancerPassword, example },
    event: { slug: event.slug, name: event.name },
    matching: { runId: run.id, status: run.status },
  };
}
