import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getDMMF } from '@prisma/internals';
import { prisma } from '../helpers/db';

/**
 * The migrations are hand-written SQL, so this test proves the migrated database matches
 * prisma/schema.prisma: every model is a table, every scalar field a column with the same
 * nullability, every @@unique/@unique a unique index and every @@index an index over the
 * same columns. Constraints Prisma cannot express are listed in SQL_ONLY_INDEXES.
 */
const SQL_ONLY_INDEXES = new Set([
  'Match_eventId_pair_key',
  'User_username_lower_key',
  'Report_open_reporter_target_key',
]);

interface DmmfField {
  name: string;
  kind: string;
  isRequired: boolean;
  isList: boolean;
  dbName?: string | null;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'normal' | 'unique' | 'fulltext';
  fields: { name: string }[];
}

async function loadDmmf() {
  // @prisma/internals parses the schema with Prisma's own WebAssembly engine (offline).
  const datamodel = readFileSync(path.join(__dirname, '..', '..', 'prisma', 'schema.prisma'), 'utf8');
  const dmmf = await getDMMF({ datamodel });
  return dmmf.datamodel as unknown as { models: DmmfModel[]; indexes: DmmfIndex[] };
}

describe('migrated database vs Prisma schema', () => {
  let dmmf: { models: DmmfModel[]; indexes: DmmfIndex[] };
  let columns: { table_name: string; column_name: string; is_nullable: string }[];
  let indexes: { tablename: string; indexname: string; indexdef: string }[];

  beforeAll(async () => {
    dmmf = await loadDmmf();
    columns = await prisma.$queryRaw`
      SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`;
    indexes = await prisma.$queryRaw`
      SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`;
  });

  it('has exactly one table per model', () => {
    const tables = [...new Set(columns.map((c) => c.table_name))].sort();
    expect(tables).toEqual(dmmf.models.map((m) => m.dbName ?? m.name).sort());
  });

  it('has every scalar field as a column with the same nullability, and no extra column', () => {
    for (const model of dmmf.models) {
      const table = model.dbName ?? model.name;
      const expected = model.fields
        .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
        .map((f) => `${f.dbName ?? f.name}:${f.isRequired ? 'NO' : 'YES'}`)
        .sort();
      const actual = columns
        .filter((c) => c.table_name === table)
        .map((c) => `${c.column_name}:${c.is_nullable}`)
        .sort();
      expect({ table, columns: actual }).toEqual({ table, columns: expected });
    }
  });

  it('has every unique, index and primary key of the schema, and no unlisted extra', () => {
    const columnsOf = (def: string) =>
      /\((.*)\)/
        .exec(def.replace(/ NULLS NOT DISTINCT/, ''))![1]
        .split(',')
        .map((c) => c.trim().replace(/"/g, ''));
    const actual = indexes
      .filter((i) => !SQL_ONLY_INDEXES.has(i.indexname))
      .map((i) => {
        const kind = i.indexname.endsWith('_pkey') ? 'id' : /CREATE UNIQUE/.test(i.indexdef) ? 'unique' : 'normal';
        return `${i.tablename}:${kind}:${columnsOf(i.indexdef).join(',')}`;
      })
      .sort();
    const expected = dmmf.indexes.map((i) => `${i.model}:${i.type}:${i.fields.map((f) => f.name).join(',')}`).sort();
    expect(actual).toEqual(expected);
  });

  it('keeps the SQL-only constraints the schema cannot express', () => {
    const names = indexes.map((i) => i.indexname);
    for (const name of SQL_ONLY_INDEXES) expect(names).toContain(name);
    const heatUnique = indexes.find((i) => i.indexname === 'Heat_userId_eventId_divisionId_competitionTypeId_role_key');
    expect(heatUnique?.indexdef).toMatch(/NULLS NOT DISTINCT/);
    const usernameLower = indexes.find((i) => i.indexname === 'User_username_lower_key');
    expect(usernameLower?.indexdef).toMatch(/CREATE UNIQUE INDEX .* \(lower\(\(username\)::text\)\)/);
  });
});
