import type { Event } from '../../src/generated/prisma/client';
import { prisma } from '../helpers/db';
import { createUser, joinEvent, unique, type TestUser } from '../helpers/factories';
import { heat, runMatching, scenario } from '../helpers/matching';
import { api } from '../helpers/server';

/**
 * Names and the CSV export (docs/security-hardening.md): control characters are refused in
 * names, cities and countries, and the organiser's export quotes every field and never lets a
 * stored line break start a record or a formula.
 */

const CONTROL_SAMPLES: Array<[string, string]> = [
  ['a line feed', "Anna\n=cmd|' /C calc'!A0"],
  ['a carriage return', 'Anna\r@SUM(1+1)'],
  ['a tab', 'Anna\tKowalska'],
  ['DEL', 'An\u007fna'],
  ['a C1 control (NEL)', 'An\u0085na'],
];

describe('control characters in names, cities and countries', () => {
  it.each(
    ['firstName', 'lastName', 'city', 'country'].flatMap((field) =>
      CONTROL_SAMPLES.map(([what, value]) => [field, what, value]),
    ),
  )('PATCH /users/me refuses a %s holding %s with 400 and writes nothing', async (field, _what, value) => {
    const me = await createUser({ firstName: 'Before', city: 'Warsaw' });
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ lastName: 'Changed', [field]: value });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: 'Validation failed' });
    expect(res.body.details).toContainEqual({ field, message: `${field} must not contain control characters` });
    const row = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expect(row).toMatchObject({ firstName: 'Before', lastName: null, city: 'Warsaw', country: null });
  });

  it.each(['firstName', 'lastName'])(
    'registration refuses a %s with a line break and creates no account',
    async (field) => {
      const username = unique('ctl_');
      const res = await api()
        .post('/api/auth/register')
        .send({
          username,
          email: `${username}@example.test`,
          password: 'secret123',
          [field]: 'Eve\r\n=HYPERLINK("http://evil.test")',
        });
      expect(res.status).toBe(400);
      expect(res.body.details).toContainEqual({ field, message: `${field} must not contain control characters` });
      expect(await prisma.user.count({ where: { username } })).toBe(0);
    },
  );

  it('refuses a NUL in a name at the edge with 400 naming the field (as in any JSON body) and writes nothing', async () => {
    const me = await createUser({ firstName: 'Before' });
    const res = await api().patch('/api/users/me').set('Authorization', me.auth).send({ firstName: 'An\u0000na' });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['firstName']);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).firstName).toBe('Before');
  });

  it('accepts names with leading or trailing white space (trimmed) and non-ASCII letters', async () => {
    const me = await createUser();
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', me.auth)
      .send({ firstName: '\tZoë\n', city: 'Kraków ', country: 'Österreich' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ firstName: 'Zoë', city: 'Kraków', country: 'Österreich' });
  });
});

/**
 * A deliberately lenient reader (as some spreadsheet importers are): a CR or LF ends the record
 * wherever it stands, inside quotes too; `""` inside quotes is a quote.
 */
function lenientCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    record.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endCell();
      records.push(record);
      record = [];
      quoted = false;
    } else if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') endCell();
    else cell += c;
  }
  if (cell !== '' || record.length > 0) {
    endCell();
    records.push(record);
  }
  return records;
}

describe('CSV export of a plan with hostile names stored before the input check', () => {
  const exportCsv = (event: Event, admin: TestUser, runId: string) =>
    api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${runId}/export.csv`)
      .set('Authorization', admin.auth)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks).toString('utf8')));
      });

  async function hostileExport() {
    const { event, admin } = await scenario();
    const names = [
      { firstName: "Anna\r\n=cmd|' /C calc'!A0", lastName: 'K' },
      { firstName: '\t=1+1', lastName: '\n+2' },
      { firstName: '@SUM(A1)', lastName: 'x\u0085y' },
      { firstName: 'Zoë "Z"', lastName: 'Ö, Ä' },
    ];
    const people: TestUser[] = [];
    for (const n of names) {
      // written directly: rows stored before the input check existed
      const u = await createUser(n);
      await joinEvent(u.user, event);
      people.push(u);
    }
    for (const [i, u] of people.entries()) await heat(u, event, { n: i < 2 ? 1 : 2 });
    const run = await runMatching(event, admin);
    const res = await exportCsv(event, admin, run.id);
    expect(res.status).toBe(200);
    return res.body as string;
  }

  it('gives every record the header number of cells and starts no cell with =, +, -, @, TAB or CR, even for a reader that ends records at any line break', async () => {
    const text = await hostileExport();
    const records = lenientCsv(text.slice(1));
    expect(records.length).toBeGreaterThanOrEqual(5);
    for (const record of records) {
      expect(record).toHaveLength(8);
      for (const cell of record) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    }
    expect(records.some((r) => r[1].startsWith("'=cmd") || r[1].includes('=cmd'))).toBe(true);
  });

  it('quotes every field, header included, ends records with CRLF and writes control characters as spaces', async () => {
    const text = await hostileExport();
    expect(text.startsWith('\ufeff')).toBe(true);
    const lines = text.slice(1).split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('"Heat","Dancer","Recorder","Status","Locality","Opt-out used","Pinned","Recorder balance"');
    for (const line of lines) {
      expect(line).toMatch(/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*"){7}$/);
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
    expect(text).toContain("\"Anna  =cmd|' /C calc'!A0 K (");
    expect(text).toContain('"\' =1+1  +2 (');
    expect(text).toContain('"Zoë ""Z"" Ö, Ä (');
  });
});
