import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { applyMigrations, listLocalMigrations } from '../../src/lib/migrate';
import { prisma } from '../helpers/db';
import { COMPETITION_TYPES, DIVISIONS, seedReferenceData } from '../../src/lib/seed';

describe('migrations and reference data', () => {
  it('records every migration in _prisma_migrations with the sha256 checksum of its file', async () => {
    const rows = await prisma.$queryRaw<
      { migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }[]
    >`
      SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`;
    const local = listLocalMigrations();
    expect(rows.map((r) => r.migration_name)).toEqual(local.map((m) => m.name));
    for (const [i, row] of rows.entries()) {
      expect(row.checksum).toBe(createHash('sha256').update(local[i].sql).digest('hex'));
      expect(row.finished_at).not.toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it('applies nothing on a second run', async () => {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const result = await applyMigrations({
        query: async (sql, params) => (await client.query(sql, params)).rows,
        exec: async (sql) => {
          await client.query(sql);
        },
      });
      expect(result.applied).toEqual([]);
      expect(result.alreadyApplied).toBe(listLocalMigrations().length);
    } finally {
      await client.end();
    }
  });

  it('seeds the 6 divisions and 2 competition types idempotently with stable ids', async () => {
    const before = await prisma.division.findMany({ orderBy: { id: 'asc' } });
    await seedReferenceData(prisma);
    await seedReferenceData(prisma);
    const divisions = await prisma.division.findMany({ orderBy: { id: 'asc' } });
    const types = await prisma.competitionType.findMany({ orderBy: { id: 'asc' } });
    expect(divisions).toEqual(before);
    expect(divisions.map((d) => d.abbreviation)).toEqual(DIVISIONS.map((d) => d.abbreviation));
    expect(divisions.map((d) => d.name)).toEqual([
      'Newcomer',
      'Novice',
      'Intermediate',
      'Advanced',
      'All-Stars',
      'Champions',
    ]);
    expect(types.map((t) => [t.name, t.abbreviation])).toEqual(COMPETITION_TYPES.map((t) => [t.name, t.abbreviation]));
  });
});
