import type { PrismaClient } from '../generated/prisma/client.js';

/** Reference data (divisions and competition types of the OpenAPI document). Seeded idempotently at every start, in this order (stable ids). */
export const DIVISIONS = [
  { name: 'Newcomer', abbreviation: 'NEW' },
  { name: 'Novice', abbreviation: 'NOV' },
  { name: 'Intermediate', abbreviation: 'INT' },
  { name: 'Advanced', abbreviation: 'ADV' },
  { name: 'All-Stars', abbreviation: 'ALL' },
  { name: 'Champions', abbreviation: 'CHA' },
] as const;

export const COMPETITION_TYPES = [
  { name: 'Jack & Jill', abbreviation: 'J&J' },
  { name: 'Strictly', abbreviation: 'STR' },
] as const;

export async function seedReferenceData(prisma: PrismaClient): Promise<void> {
  for (const d of DIVISIONS) {
    await prisma.division.upsert({ where: { abbreviation: d.abbreviation }, update: { name: d.name }, create: d });
  }
  for (const t of COMPETITION_TYPES) {
    await prisma.competitionType.upsert({
      where: { abbreviation: t.abbreviation },
      update: { name: t.name },
      create: t,
    });
  }
}
