/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import type { Page } from 'playwright-core';
import type { Event } from '../../src/generated/prisma/client';
import { MATCHING_LOCK_CLASS } from '../../src/modules/matching/matching.lock';
import { browserDescribe, openSignedIn, screenshot, viewReady, useConsoleTabs } from '../helpers/console-browser';
import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser, joinEvent, unique, type TestUser } from '../helpers/factories';
import { heat, runMatching } from '../helpers/matching';
import type { TestServer } from '../helpers/server';

/** The matching view of the admin console (docs/console.md): runs, preview, run now, a run's tables, the CSV. */
const RUN_COLUMNS = ['Status', 'Trigger', 'Started', 'Finished', 'Heats', 'Assigned', 'Unassigned', 'Details'];

/** Five dancers in one event: all dance NOV heat 1 (nobody is free to record it), two also dance a heat others can record. */
async function matchingScenario(): Promise<Event> {
  const event = await createEvent({ name: 'Zurich Swing Classic' });
  const people = [];
  for (const [name, city] of [
    ['anna', 'Zurich'],
    ['ben', 'Zurich'],
    ['carla', 'Bern'],
    ['dario', 'Basel'],
    ['eva', 'Zurich'],
  ] as const) {
    const u = await createUser({ username: unique(`${name}_`), city, country: 'Switzerland' });
    await joinEvent(u.user, event);
    people.push(u);
  }
  const [anna, ben, carla, dario, eva] = people;
  await heat(anna, event, { division: 'NOV', n: 1, role: 'Leader' });
  await heat(ben, event, { division: 'NOV', n: 1, role: 'Follower' });
  for (const u of [carla, dario, eva]) await heat(u, event, { division: 'NOV', n: 1 });
  await heat(carla, event, { division: 'INT', n: 2 });
  await heat(dario, event, { division: 'ADV', n: 3 });
  return event;
}

const dataOf = async (page: Page, selector: string, key: string) =>
  page.locator(selector).evaluateAll((rows, k) => rows.map((r) => (r as HTMLElement).dataset[k]), key);

browserDescribe('admin console matching', () => {
  const tabs = useConsoleTabs();
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createAdmin({ username: unique('organiser_') });
  });

  it('previews a run: the figures of the dry run, every unfilled reason, and nothing else changes', async () => {
    const event = await matchingScenario();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}/matching`, 'matching');
    expect(await page.locator('h1').allTextContents()).toEqual([`Matching: ${event.name}`]);
    expect(await page.locator('[data-testid="run-table"] thead th[scope="col"]').allTextContents()).toEqual(
      RUN_COLUMNS,
    );
    expect(await page.locator('[data-testid="run-table"] tbody tr').count()).toBe(0);

    await page.getByTestId('run-preview').click();
    await page.getByTestId('preview-result').waitFor();
    const expected = (
      await tabs.server.request
        .post(`/api/admin/events/${event.slug}/matching-runs`)
        .set('Authorization', admin.auth)
        .send({ dryRun: true })
        .expect(200)
    ).body.data;
    const figure = (testid: string) => page.getByTestId(testid).textContent();
    expect(await figure('preview-heats-total')).toBe(String(expected.heatsTotal));
    expect(await figure('preview-heats-assigned')).toBe(String(expected.heatsAssigned));
    expect(await figure('preview-heats-unassigned')).toBe(String(expected.heatsUnassigned));
    expect(await figure('preview-kept')).toBe(String(expected.reuse.kept));
    expect(await figure('preview-added')).toBe(String(expected.reuse.added));
    expect(await figure('preview-dropped')).toBe(String(expected.reuse.dropped));
    const reasons = Object.keys(expected.unfilledByReason);
    expect(reasons.length).toBeGreaterThanOrEqual(6);
    for (const reason of reasons)
      expect(await figure(`preview-unfilled-${reason}`)).toBe(String(expected.unfilledByReason[reason]));
    expect(expected.heatsUnassigned).toBeGreaterThan(0);

    expect(await page.locator('[data-testid="run-table"] tbody tr').count()).toBe(0);
    expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(0);
    expect(
      await prisma.activityLog.count({
        where: { action: 'matching_dry_run', resource: `event:${event.slug}`, userId: admin.user.id },
      }),
    ).toBe(2);
  });

  it('runs now: the new run is first and selected, with its suggestions and unfilled heats as the API has them', async () => {
    const event = await matchingScenario();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}/matching`, 'matching');
    await page.getByTestId('run-preview').click();
    await page.getByTestId('preview-result').waitFor();
    await page.getByTestId('run-now').click();
    await page.locator('[data-testid="run-table"] tbody tr').first().waitFor();
    await viewReady(page, 'matching');

    const run = await prisma.matchingRun.findFirstOrThrow({ where: { eventId: event.id } });
    expect(await dataOf(page, '[data-testid="run-table"] tbody tr', 'runId')).toEqual([run.id]);
    const cells = await page.locator('[data-testid="run-table"] tbody tr td').allTextContents();
    expect(cells.slice(0, 2)).toEqual(['success', 'manual']);
    expect(cells.slice(4, 7)).toEqual([String(run.heatsTotal), String(run.heatsAssigned), String(run.heatsUnassigned)]);
    expect(await page.locator('[data-testid="run-table"] tbody tr time').first().getAttribute('datetime')).toBe(
      run.startedAt.toISOString(),
    );

    const auth = (r: ReturnType<TestServer['request']['get']>) => r.set('Authorization', admin.auth).expect(200);
    const suggestions = (
      await auth(tabs.server.request.get(`/api/admin/events/${event.slug}/matching-runs/${run.id}/suggestions`))
    ).body.data;
    const details = (await auth(tabs.server.request.get(`/api/admin/events/${event.slug}/matching-runs/${run.id}`)))
      .body.data;
    const label = (
      h: {
        competitionType: { abbreviation: string };
        division: { abbreviation: string };
        heatNumber: number;
        role: string | null;
      } | null,
    ) =>
      h
        ? `${h.competitionType.abbreviation} ${h.division.abbreviation} heat ${h.heatNumber}${h.role ? ` (${h.role})` : ''}`
        : '—';

    expect(await page.locator('[data-testid="suggestions-table"] thead th[scope="col"]').allTextContents()).toEqual([
      'Heat',
      'Dancer',
      'Recorder',
      'Status',
    ]);
    const suggestionRows = await page
      .locator('[data-testid="suggestions-table"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    expect(suggestionRows).toEqual(
      suggestions.map(
        (s: {
          heat: Parameters<typeof label>[0];
          dancer: { username: string };
          recorder: { username: string } | null;
          status: string;
        }) => [label(s.heat), s.dancer.username, s.recorder?.username ?? '—', s.status],
      ),
    );
    expect(suggestionRows.some((r: (string | null)[]) => r[2] !== '—')).toBe(true);

    expect(await page.locator('[data-testid="unfilled-table"] thead th[scope="col"]').allTextContents()).toEqual([
      'Heat',
      'Dancer',
      'Reason',
    ]);
    const unfilledRows = await page
      .locator('[data-testid="unfilled-table"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    expect(unfilledRows).toEqual(
      details.unfilledHeats.map(
        (u: { heat: Parameters<typeof label>[0]; dancer: { username: string } | null; reason: string }) => [
          label(u.heat),
          u.dancer?.username ?? '—',
          u.reason,
        ],
      ),
    );
    expect(unfilledRows).toContainEqual([
      'J&J NOV heat 1 (Leader)',
      expect.stringMatching(/^anna_/),
      'ALL_CANDIDATES_DANCING',
    ]);
    expect(await page.getByTestId('csv-link').isVisible()).toBe(true);
    await screenshot(page, 'matching');
  });

  it('downloads the CSV of the latest successful run under the name the service gives, content unchanged', async () => {
    const event = await matchingScenario();
    const run = await runMatching(event, admin);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}/matching`, 'matching');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-link').click()]);
    expect(download.suggestedFilename()).toBe(`matching-${event.slug}-${run.id}.csv`);
    const saved = readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '');
    const fromApi = await tabs.server.request
      .get(`/api/admin/events/${event.slug}/matching-runs/${run.id}/export.csv`)
      .set('Authorization', admin.auth)
      .buffer(true)
      .parse((res, cb) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => cb(null, body));
      });
    expect(saved).toBe(String(fromApi.body).replace(/^\uFEFF/, ''));
    // every field quoted (docs/security-hardening.md); fair matching adds two columns
    expect(saved.split('\r\n')[0]).toBe(
      '"Heat","Dancer","Recorder","Status","Locality","Opt-out used","Pinned","Recorder balance"',
    );
    expect(
      await prisma.activityLog.count({ where: { action: 'matching_run_export', resource: `event:${event.slug}` } }),
    ).toBe(2);
  });

  it('selects the newest run at load and opens an older one, which has no CSV link', async () => {
    const event = await matchingScenario();
    const older = await runMatching(event, admin);
    const newer = await runMatching(event, admin);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}/matching`, 'matching');
    expect(await dataOf(page, '[data-testid="run-table"] tbody tr', 'runId')).toEqual([newer.id, older.id]);
    expect(await dataOf(page, '[data-testid="run-table"] tbody tr[aria-current="true"]', 'runId')).toEqual([newer.id]);
    expect(await page.getByTestId('csv-link').count()).toBe(1);

    await page.locator(`[data-testid="run-table"] tr[data-run-id="${older.id}"] [data-testid="run-open"]`).click();
    await page.locator(`[data-testid="run-table"] tr[data-run-id="${older.id}"][aria-current="true"]`).waitFor();
    await viewReady(page, 'matching');
    expect(await page.getByTestId('csv-link').count()).toBe(0);
    expect(await page.locator('[data-testid="suggestions-table"]').count()).toBe(1);
  });

  it("shows the API's error when a run is already in progress", async () => {
    const event = await matchingScenario();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}/matching`, 'matching');
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1, $2)', [MATCHING_LOCK_CLASS, event.id]);
      await page.getByTestId('run-now').click();
      await page.getByTestId('matching-error').waitFor();
      expect(await page.getByTestId('matching-error').textContent()).toBe(
        'A matching run is already in progress for this event',
      );
    } finally {
      await holder.end();
    }
    expect(await page.locator('[data-testid="run-table"] tbody tr').count()).toBe(0);
    expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(0);
  });
});
