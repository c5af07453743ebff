import type { PrismaClient } from '../generated/prisma/client.js';

/** A division or competition type as the API shows it. */
export interface ReferenceItem {
  id: number;
  name: string;
  abbreviation: string;
}

interface Snapshot {
  divisions: ReferenceItem[];
  competitionTypes: ReferenceItem[];
  divisionIds: ReadonlySet<number>;
  competitionTypeIds: ReadonlySet<number>;
}

const referenceSelect = { id: true, name: true, abbreviation: true } as const;

/**
 * Divisions and competition types: seeded reference data (src/lib/seed.ts) that never changes
 * while the service runs. Read from the database once, on first use, and kept; validators and
 * services check ids against it without a query. A failed or empty read (a database not seeded
 * yet) is not kept: the next use reads again.
 */
export class ReferenceData {
  private snapshot: Promise<Snapshot> | undefined;

  constructor(private readonly db: PrismaClient) {}

  /** Divisions ordered by id. */
  async divisions(): Promise<ReferenceItem[]> {
    return (await this.load()).divisions;
  }

  /** Competition types ordered by id. */
  async competitionTypes(): Promise<ReferenceItem[]> {
    return (await this.load()).competitionTypes;
  }

  /** Ids of the existing divisions (for validators). */
  async divisionIds(): Promise<ReadonlySet<number>> {
    return (await this.load()).divisionIds;
  }

  /** Ids of the existing competition types (for validators). */
  async competitionTypeIds(): Promise<ReadonlySet<number>> {
    return (await this.load()).competitionTypeIds;
  }

  private load(): Promise<Snapshot> {
    if (this.snapshot) return this.snapshot;
    const snapshot = this.read();
    this.snapshot = snapshot;
    const forget = () => {
      if (this.snapshot === snapshot) this.snapshot = undefined;
    };
    snapshot.then((s) => s.divisions.length === 0 && forget(), forget);
    return snapshot;
  }

  private async read(): Promise<Snapshot> {
    const [divisions, competitionTypes] = await Promise.all([
      this.db.division.findMany({ select: referenceSelect, orderBy: { id: 'asc' } }),
      this.db.competitionType.findMany({ select: referenceSelect, orderBy: { id: 'asc' } }),
    ]);
    return {
      divisions,
      competitionTypes,
      divisionIds: new Set(divisions.map((d) => d.id)),
      competitionTypeIds: new Set(competitionTypes.map((t) => t.id)),
    };
  }
}
