import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Each table has one owning feature (docs/contributing.md "Table owners"): only the owner's files
 * write it. A static check of src/modules: a Prisma write (`.user.update(`, `tx.message.updateMany(`…)
 * or a raw INSERT / UPDATE / DELETE on the table outside the files listed here fails.
 */
const ROOT = join(__dirname, '..', '..');
const MODULES = join(ROOT, 'src', 'modules');

interface Owner {
  /** Prisma model accessor and SQL table name */
  model: string;
  table: string;
  /** the files allowed to write it (paths from the repository root; one ending in / is a whole folder) */
  writers: string[];
}

const OWNERS: Owner[] = [
  { model: 'user', table: 'User', writers: ['src/modules/users/user-records.ts'] },
  {
    model: 'message',
    table: 'Message',
    writers: ['src/modules/chat/'],
  },
  {
    model: 'chatRoom',
    table: 'ChatRoom',
    writers: ['src/modules/chat/'],
  },
  {
    model: 'match',
    table: 'Match',
    writers: ['src/modules/matches/'],
  },
  { model: 'heat', table: 'Heat', writers: ['src/modules/heats/heats.service.ts'] },
  {
    model: 'event',
    table: 'Event',
    // event-access.ts: the writes other features ask of the events feature (matching's run stamp, no-shows, preferences)
    writers: [
      'src/modules/events/events.service.ts',
      'src/modules/events/checkin.service.ts',
      'src/modules/events/event-access.ts',
    ],
  },
  {
    model: 'eventParticipant',
    table: 'EventParticipant',
    writers: [
      'src/modules/events/events.service.ts',
      'src/modules/events/checkin.service.ts',
      'src/modules/events/event-access.ts',
    ],
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const WRITE_METHODS =
  'create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany';

function writersOf({ model, table }: Owner): string[] {
  const prismaWrite = new RegExp(`\\.${model}\\.(?:${WRITE_METHODS})\\(`);
  const sqlWrite = new RegExp(`(?:INSERT INTO|UPDATE|DELETE FROM)\\s+"${table}"`);
  return sourceFiles(MODULES)
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return prismaWrite.test(text) || sqlWrite.test(text);
    })
    .map((file) => relative(ROOT, file).split('\\').join('/'));
}

describe('table owners (docs/contributing.md)', () => {
  it.each(OWNERS)('only the owner of $table writes it', (owner) => {
    const allowed = (file: string) =>
      owner.writers.some((writer) => (writer.endsWith('/') ? file.startsWith(writer) : file === writer));
    const strangers = writersOf(owner).filter((file) => !allowed(file));
    expect(strangers).toEqual([]);
  });
});
