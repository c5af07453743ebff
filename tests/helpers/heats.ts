import { prisma } from './db';
import { competitionTypeId, divisionId } from './factories';

export interface Ref {
  NEW: number;
  NOV: number;
  INT: number;
  ADV: number;
  ALL: number;
  CHA: number;
  JJ: number;
  STR: number;
}

/** Ids of the seeded divisions and competition types. */
export async function refs(): Promise<Ref> {
  const [NEW, NOV, INT, ADV, ALL, CHA, JJ, STR] = await Promise.all([
    divisionId('NEW'),
    divisionId('NOV'),
    divisionId('INT'),
    divisionId('ADV'),
    divisionId('ALL'),
    divisionId('CHA'),
    competitionTypeId('J&J'),
    competitionTypeId('STR'),
  ]);
  return { NEW, NOV, INT, ADV, ALL, CHA, JJ, STR };
}

/** The heats stored for a user at an event, as comparable tuples. */
export async function storedHeats(userId: number, eventId: number) {
  const rows = await prisma.heat.findMany({
    where: { userId, eventId },
    orderBy: [{ competitionTypeId: 'asc' }, { divisionId: 'asc' }, { heatNumber: 'asc' }, { role: 'asc' }],
  });
  return rows.map((h) => ({
    divisionId: h.divisionId,
    competitionTypeId: h.competitionTypeId,
    heatNumber: h.heatNumber,
    role: h.role,
  }));
}
