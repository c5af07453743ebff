import type { Response } from 'express';
import { defineInput, definePayload, f, type InputOf } from '../../src/middleware/input';
import { AppError } from '../../src/lib/errors';
import { defineView, v, type ViewOf } from '../../src/lib/view';
import { eventSummaryView } from '../../src/modules/events/events.views';
import { matchView, matchWithRatedView } from '../../src/modules/matches/matches.views';
import { findMemberMatch, toMatchView } from '../../src/modules/matches/match-records';
import { insertMatch } from '../helpers/matches';
import { messageView, privateMessageView } from '../../src/modules/chat/chat.views';
import { ChatService } from '../../src/modules/chat/chat.service';
import { systemActor } from '../../src/lib/actor';
import { prisma } from '../helpers/db';
import { buildOpenApiDocument } from '../../src/docs/openapi';
import { competitionTypeId, createEvent, createUser, divisionId, joinEvent } from '../helpers/factories';
import {
  runSelect,
  runView,
  suggestionSelect,
  suggestionView,
  toRunView,
} from '../../src/modules/matching/matching.views';
import { testDatabase } from '../helpers/db';

/** A view with every kind of field, over e (Event) and p (its participation). */
const sampleView = defineView(
  'Sample',
  {
    id: v.int(),
    startDate: v.dateTime(),
    note: v.nullStr().describe('free text'),
    isJoined: v.bool().sql('(p.id IS NOT NULL)'),
  },
  { alias: 'e' },
);

describe('a view declared once (src/lib/view.ts)', () => {
  it('derives a closed OpenAPI object with every field required', () => {
    expect(sampleView.schema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['id', 'startDate', 'note', 'isJoined'],
      properties: {
        id: { type: 'integer' },
        startDate: { type: 'string', format: 'date-time' },
        note: { type: ['string', 'null'], description: 'free text' },
        isJoined: { type: 'boolean' },
      },
    });
  });

  it('derives a Prisma select of the columns only, leaving computed fields out', () => {
    expect(sampleView.select).toEqual({ id: true, startDate: true, note: true });
  });

  it('derives the SQL select list and a json_build_object with timestamps as Date.toJSON renders them', () => {
    expect(sampleView.columns()).toBe('e."id", e."startDate", e."note", (p.id IS NOT NULL) AS "isJoined"');
    expect(sampleView.json()).toBe(
      `json_build_object('id', e."id", 'startDate', to_char(e."startDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'note', e."note", 'isJoined', (p.id IS NOT NULL))`,
    );
  });

  it('types a row from the declaration', () => {
    const row: ViewOf<typeof sampleView> = { id: 1, startDate: new Date(), note: null, isJoined: true };
    expect(Object.keys(row)).toEqual(sampleView.keys);
  });

  it('is the OpenAPI component of its name (the event summary)', () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas.EventSummary).toEqual(eventSummaryView.schema);
  });

  it('reads exactly its fields from PostgreSQL, json() rendering what columns() reads', async () => {
    const { user } = await createUser();
    const event = await createEvent();
    await joinEvent(user, event);
    const reader = testDatabase.sql;
    const statement = (select: string) => ({
      name: `contracts_${select.length}`,
      text: `SELECT ${select} FROM "Event" e LEFT JOIN "EventParticipant" p ON p."eventId" = e.id AND p."userId" = $1 WHERE e.id = $2`,
    });
    const [row] = await reader.rows<Record<string, unknown>>(statement(eventSummaryView.columns()), [
      user.id,
      event.id,
    ]);
    const [{ j }] = await reader.rows<{ j: Record<string, unknown> }>(statement(`${eventSummaryView.json()} AS j`), [
      user.id,
      event.id,
    ]);
    expect(Object.keys(row)).toEqual(eventSummaryView.keys);
    expect(j).toEqual(JSON.parse(JSON.stringify(row)));
    expect(row).toMatchObject({ id: event.id, isJoined: true, participantsCount: 1 });
  });
});

describe('the match view (src/modules/matches/matches.views.ts)', () => {
  it('is the Match and MatchWithRated components', () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas.Match).toEqual(matchView.schema);
    expect(doc.components.schemas.MatchWithRated).toEqual(matchWithRatedView.schema);
  });

  it('renders in SQL exactly what the Prisma read maps, for either member', async () => {
    const event = await createEvent();
    const { user: alice } = await createUser();
    const { user: bob } = await createUser();
    const match = await insertMatch(event, alice, bob, 'accepted');
    await prisma.videoTransfer.create({
      data: {
        matchId: match.id,
        senderId: alice.id,
        receiverId: bob.id,
        fileName: 'heat.mp4',
        size: 1n,
        sha256: 'a'.repeat(64),
        status: 'completed',
      },
    });
    for (const [viewer, partner] of [
      [alice, bob],
      [bob, alice],
    ]) {
      const [{ j }] = await testDatabase.sql.rows<{ j: unknown }>(
        {
          name: `contracts_match_${viewer.id}`,
          text: `SELECT ${matchWithRatedView.json()} AS j FROM "Match" m JOIN "Event" e ON e.id = m."eventId"
                 JOIN "User" u ON u.id = $2 LEFT JOIN "ChatRoom" r ON r."matchId" = m.id WHERE m.id = $3`,
        },
        [viewer.id, partner.id, match.id],
      );
      const mapped = toMatchView(await findMemberMatch(prisma, match.slug, viewer.id), viewer.id);
      expect(j).toEqual(JSON.parse(JSON.stringify({ ...mapped, hasRated: false })));
    }
  });
});

describe('the message view (src/modules/chat/chat.views.ts)', () => {
  it('is the Message and PrivateMessage components', () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas.Message).toEqual(messageView.schema);
    expect(doc.components.schemas.PrivateMessage).toEqual(privateMessageView.schema);
  });

  it("renders in SQL exactly what the Prisma page maps, a deleted author's message included", async () => {
    const event = await createEvent({ withChatRoom: true });
    const { user } = await createUser();
    const room = await prisma.chatRoom.findFirstOrThrow({ where: { eventId: event.id } });
    await prisma.message.create({ data: { roomId: room.id, userId: user.id, content: 'hello' } });
    await prisma.message.create({ data: { roomId: room.id, userId: null, content: '[deleted]' } });
    const [{ j }] = await testDatabase.sql.rows<{ j: unknown }>(
      {
        name: 'contracts_messages',
        text: `SELECT json_agg(${messageView.json()} ORDER BY m.id) AS j
               FROM "Message" m LEFT JOIN "User" u ON u.id = m."userId" WHERE m."roomId" = $1`,
      },
      [room.id],
    );
    const page = await new ChatService({ db: prisma }).listRoomMessages(systemActor('test'), { roomId: room.id });
    expect(j).toEqual(JSON.parse(JSON.stringify(page.messages)));
    expect(page.messages.map((m) => m.username)).toEqual([user.username, 'deleted-user']);
  });
});

describe('the suggestion view (src/modules/matching/matching.views.ts)', () => {
  it('is the Suggestion component', () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas.Suggestion).toEqual(suggestionView.schema);
  });

  it('renders in SQL exactly what the Prisma select reads, with and without a recorder', async () => {
    const event = await createEvent();
    const { user: dancer } = await createUser();
    const { user: recorder } = await createUser();
    await joinEvent(dancer, event);
    const heat = await prisma.heat.create({
      data: {
        userId: dancer.id,
        eventId: event.id,
        divisionId: await divisionId('NOV'),
        competitionTypeId: await competitionTypeId('J&J'),
        heatNumber: 2,
        role: 'Leader',
      },
    });
    const base = { eventId: event.id, heatId: heat.id, dancerId: dancer.id };
    const ids = [
      (await prisma.recordingSuggestion.create({ data: { ...base, recorderId: recorder.id, pinned: true } })).id,
      (
        await prisma.recordingSuggestion.create({
          data: { ...base, status: 'not_found', unfilledReason: 'NO_OTHER_PARTICIPANT' },
        })
      ).id,
    ];
    const [{ j }] = await testDatabase.sql.rows<{ j: unknown }>(
      {
        name: 'contracts_suggestions',
        text: `SELECT json_agg(${suggestionView.json()} ORDER BY s.id) AS j
               FROM "RecordingSuggestion" s JOIN "Heat" h ON h.id = s."heatId"
               JOIN "Division" d ON d.id = h."divisionId" JOIN "CompetitionType" ct ON ct.id = h."competitionTypeId"
               JOIN "User" du ON du.id = s."dancerId" LEFT JOIN "User" ru ON ru.id = s."recorderId"
               WHERE s.id = ANY($1::int[])`,
      },
      [ids],
    );
    const rows = await prisma.recordingSuggestion.findMany({
      where: { id: { in: ids } },
      orderBy: { id: 'asc' },
      select: suggestionSelect,
    });
    expect(j).toEqual(JSON.parse(JSON.stringify(rows)));
    expect(rows.map((r) => r.recorder?.id ?? null)).toEqual([recorder.id, null]);
  });
});

describe('the run view (src/modules/matching/matching.views.ts)', () => {
  it('is the Run component', () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    expect(doc.components.schemas.Run).toEqual(runView.schema);
  });

  it('counts the open heats per reason in SQL as toRunView does, a run without a list included', async () => {
    const event = await createEvent();
    const unfilled = [
      { heatId: 1, reason: 'SLOT_CONFLICT' },
      { heatId: 2, reason: 'SLOT_CONFLICT' },
      { heatId: 3, reason: 'ALL_CANDIDATES_AT_CAP' },
    ];
    const base = { eventId: event.id, trigger: 'manual', heatsTotal: 5, heatsAssigned: 2, heatsUnassigned: 3 };
    const ids = [
      (
        await prisma.matchingRun.create({
          data: {
            ...base,
            status: 'success',
            unfilled,
            reuse: { previous: 1, kept: 1, added: 1, dropped: 0, invalid: 0 },
          },
        })
      ).id,
      (await prisma.matchingRun.create({ data: { ...base, status: 'failed', error: 'boom' } })).id,
    ];
    const [{ j }] = await testDatabase.sql.rows<{ j: unknown }>(
      {
        name: 'contracts_runs',
        text: `SELECT json_agg(${runView.json()} ORDER BY r."startedAt", r.id) AS j FROM "MatchingRun" r WHERE r.id = ANY($1::uuid[])`,
      },
      [ids],
    );
    const rows = await prisma.matchingRun.findMany({
      where: { id: { in: ids } },
      orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
      select: runSelect,
    });
    expect(j).toEqual(JSON.parse(JSON.stringify(rows.map(toRunView))));
    expect(rows.map(toRunView)[0].unfilledByReason).toMatchObject({ SLOT_CONFLICT: 2, ALL_CANDIDATES_AT_CAP: 1 });
  });
});

const sampleBody = {
  name: f.text({ max: 20 }),
  when: f.date(),
  note: f.nullableText({ max: 5 }),
  count: f.int({ max: 9 }).optional(),
};
const sampleInput = defineInput('sample', {
  params: { slug: f.slug() },
  query: { limit: f.int({ max: 100 }).optional() },
  body: sampleBody,
});
/** A socket payload: a body only. */
const samplePayload = defineInput('samplePayload', { body: sampleBody });

describe('an input declared once (src/middleware/input.ts)', () => {
  it('validates and sanitises a payload into its typed value', async () => {
    const value: InputOf<typeof samplePayload> = await samplePayload.parse({
      name: '  Ann ',
      when: '2030-01-02',
      note: null,
      count: 3,
    });
    expect(value).toEqual({ name: 'Ann', when: new Date('2030-01-02'), note: null, count: 3 });
  });

  it('answers 400 with one detail per field, in the messages of the shared atoms', async () => {
    await expect(samplePayload.parse({ when: 'soon', note: 'too long', count: '3' })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      details: [
        { field: 'name', message: 'name is required' },
        { field: 'when', message: 'when must be an ISO 8601 date' },
        { field: 'note', message: 'note must be at most 5 characters' },
        { field: 'count', message: 'count must be a whole number from 1 to 9' },
      ],
    });
  });

  it('converts whole numbers of the query, which arrive as text', async () => {
    const req = { params: { slug: 'abc' }, query: { limit: '7' }, body: { name: 'A', when: '2030-01-02' } };
    await expect(sampleInput.run(req)).resolves.toMatchObject({ slug: 'abc', limit: 7 });
  });

  it('derives the OpenAPI parameters and the request body with its required fields', () => {
    expect(sampleInput.openapi.parameters).toEqual([
      {
        name: 'slug',
        in: 'path',
        required: true,
        schema: { type: 'string', maxLength: 50 },
        description: 'random alphanumeric slug',
      },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
    ]);
    expect(sampleInput.openapi.body).toMatchObject({ type: 'object', required: ['name', 'when'] });
    expect(Object.keys((sampleInput.openapi.body as { properties: object }).properties)).toEqual([
      'name',
      'when',
      'note',
      'count',
    ]);
  });

  it('refuses to hand out the input of a request it did not validate', () => {
    const res = { locals: { input: { name: 'x' } } } as unknown as Response;
    expect(() => sampleInput.from(res)).toThrow('validate(sample) did not run');
  });
});

/** A body checked as a whole by its parse function (f.parsed), and a bare socket payload (definePayload). */
const evenOnly = f.parsed<number>({ type: 'integer' }, (v) => {
  if (typeof v !== 'number' || v % 2 !== 0) throw new AppError('VALIDATION_ERROR', { message: 'must be even' });
  return v;
});

describe('a value parsed as a whole, and a one-value socket payload', () => {
  it('answers the parse function\'s own error, not 400 "Validation failed"', async () => {
    const input = defineInput('even', { body: { n: evenOnly } });
    await expect(input.parse({ n: 3 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'must be even' });
    await expect(input.parse({ n: 4 })).resolves.toEqual({ n: 4 });
  });

  it('checks a bare payload with its one field and documents it with the field schema', async () => {
    const payload = definePayload('evenPayload', evenOnly);
    const value: number = await payload.parse(8);
    expect(value).toBe(8);
    await expect(payload.parse('8')).rejects.toMatchObject({ message: 'must be even' });
    expect(payload.schema).toEqual({ type: 'integer' });
  });
});
