import { sql } from '../../src/lib/sql';
import { createEvent, createUser, ensureEventRoom, joinEvent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The batched per-caller statements of the hot reads (`sql(…, { perCaller })`, src/lib/sql.ts)
 * are planned once per connection: PostgreSQL keeps their generic plan after the fifth
 * execution instead of planning every execution again, which took more of its CPU than
 * running them in the first round of polls at 3 000 dancers (docs/event-day.md). One pool
 * connection, so that every statement's plans are counted on the connection that asks.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ databasePool: { size: 1, min: 0 } });
  expect(await server.container.readCache!.start()).toBe(true);
});

afterAll(async () => {
  await server?.close();
});

const preparedStatements = sql(
  'test_prepared_statements',
  `SELECT name, generic_plans::int AS "genericPlans", custom_plans::int AS "customPlans"
   FROM pg_prepared_statements WHERE name LIKE '%\\_callers' ORDER BY name`,
);

it('every per-caller statement of the hot reads keeps its generic plan after its fifth execution', async () => {
  const event = await createEvent();
  await ensureEventRoom(event);
  const callers = await Promise.all(Array.from({ length: 24 }, () => createUser()));
  await Promise.all(callers.map((u) => joinEvent(u.user, event)));
  const paths = [
    '/api/events',
    '/api/users/me',
    '/api/dashboard',
    '/api/matches',
    `/api/events/${event.slug}/messages`,
    `/api/events/${event.slug}/match-suggestions`,
    `/api/events/${event.slug}/details`,
  ];

  // eight rounds of three callers' first reads of every path at once: each per-caller
  // statement runs about eight times, over one to three callers
  for (let round = 0; round < 8; round++) {
    const group = callers.slice(round * 3, round * 3 + 3);
    const answers = await Promise.all(
      group.flatMap((u) => paths.map((path) => server.request.get(path).set('Authorization', u.auth))),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
  }

  const plans = await server.container.database.sql.rows<{ name: string; genericPlans: number; customPlans: number }>(
    preparedStatements,
    [],
  );
  expect(plans.map((p) => p.name)).toEqual([
    'dashboard_callers',
    'event_chat_page_callers',
    'events_details_callers',
    'events_list_joined_callers',
    'matches_list_callers',
    'matching_my_suggestions_callers',
    'users_me_callers',
  ]);
  // planned at each execution: more than PostgreSQL's five custom plans, or no generic plan
  expect(plans.filter((p) => p.customPlans > 5 || p.genericPlans === 0)).toEqual([]);
});
