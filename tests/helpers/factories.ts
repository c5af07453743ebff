import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { testConfig, testContainer } from './container';
import { avatarUrlFor } from '../../src/lib/user-summary';
import { randomSlug } from '../../src/lib/ids';
import { prisma } from './db';
import type { Event, User } from '../../src/generated/prisma/client';

/**
 * Factories: every test builds its own data with unique names, so tests never depend on
 * each other or on an empty database.
 */
let counter = 0;
export const unique = (prefix = 'u') =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(2).toString('hex')}`;

export const DEFAULT_PASSWORD = 'secret123';

export interface UserOverrides {
  username?: string;
  email?: string;
  password?: string;
  emailVerified?: boolean;
  isAdmin?: boolean;
  firstName?: string | null;
  lastName?: string | null;
  city?: string | null;
  country?: string | null;
  registryId?: string | null;
}

export interface TestUser {
  user: User;
  token: string;
  password: string;
  /** `Authorization` header value */
  auth: string;
}

/** A user (e-mail verified unless told otherwise) with a valid access token. */
export async function createUser(overrides: UserOverrides = {}): Promise<TestUser> {
  const username = overrides.username ?? unique('user_');
  const password = overrides.password ?? DEFAULT_PASSWORD;
  const user = await prisma.user.create({
    data: {
      username,
      email: overrides.email ?? `${username.toLowerCase()}@example.test`,
      passwordHash: await bcrypt.hash(password, 4),
      avatar: avatarUrlFor(testConfig().publicUrl, username),
      emailVerified: overrides.emailVerified ?? true,
      isAdmin: overrides.isAdmin ?? false,
      firstName: overrides.firstName ?? null,
      lastName: overrides.lastName ?? null,
      city: overrides.city ?? null,
      country: overrides.country ?? null,
      registryId: overrides.registryId ?? null,
    },
  });
  const token = testContainer().tokens.sign(user);
  return { user, token, password, auth: `Bearer ${token}` };
}

export const createAdmin = (overrides: UserOverrides = {}) => createUser({ ...overrides, isAdmin: true });

export interface EventOverrides {
  name?: string;
  location?: string;
  startDate?: Date;
  endDate?: Date;
  description?: string | null;
  worldRegistryId?: string | null;
  registrationDeadline?: Date | null;
  scheduleConfig?: { slots: { order: number; divisionIds: number[] }[] } | null;
  /** create the event's group chat room too */
  withChatRoom?: boolean;
}

const DAY = 24 * 60 * 60 * 1000;

/** An event running from yesterday to tomorrow unless told otherwise. */
export async function createEvent(overrides: EventOverrides = {}): Promise<Event> {
  const now = Date.now();
  const event = await prisma.event.create({
    data: {
      slug: randomSlug(),
      name: overrides.name ?? `Test Event ${unique('')}`,
      location: overrides.location ?? 'Warsaw, Poland',
      startDate: overrides.startDate ?? new Date(now - DAY),
      endDate: overrides.endDate ?? new Date(now + DAY),
      description: overrides.description === undefined ? 'A test event' : overrides.description,
      worldRegistryId: overrides.worldRegistryId ?? null,
      registrationDeadline: overrides.registrationDeadline ?? null,
      scheduleConfig: overrides.scheduleConfig ?? undefined,
    },
  });
  if (overrides.withChatRoom) await prisma.chatRoom.create({ data: { eventId: event.id, type: 'event' } });
  return event;
}

/** Makes the user a participant, keeping participantsCount exact (as check-in does). */
export async function joinEvent(
  user: { id: number },
  event: { id: number },
  extra: { competitorNumber?: string | null; recorderOptOut?: boolean; joinedAt?: Date } = {},
) {
  return prisma.$transaction(async (tx) => {
    const participant = await tx.eventParticipant.create({
      data: { userId: user.id, eventId: event.id, ...extra },
    });
    await tx.event.update({ where: { id: event.id }, data: { participantsCount: { increment: 1 } } });
    return participant;
  });
}

/** The event's group room, created if missing. */
export async function ensureEventRoom(event: { id: number }) {
  return prisma.chatRoom.upsert({
    where: { eventId_type: { eventId: event.id, type: 'event' } },
    update: {},
    create: { eventId: event.id, type: 'event' },
  });
}

export async function divisionId(abbreviation: string): Promise<number> {
  return (await prisma.division.findUniqueOrThrow({ where: { abbreviation } })).id;
}

export async function competitionTypeId(abbreviation: string): Promise<number> {
  return (await prisma.competitionType.findUniqueOrThrow({ where: { abbreviation } })).id;
}
