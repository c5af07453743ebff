/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import type { Actor } from '../../src/lib/actor';
import {
  browserDescribe,
  openSignedIn,
  screenshot,
  viewReady,
  type ConsoleTab,
  useConsoleTabs,
} from '../helpers/console-browser';
import { prisma } from '../helpers/db';
import { createAdmin, unique, type TestUser } from '../helpers/factories';

/** The activity log view of the admin console (docs/console.md): filters, paging, statistics, Live. */
const COLUMNS = ['Time', 'Category', 'Action', 'User', 'Outcome', 'IP'];
// Seeded entries lie within the last 24 hours (other tests count every entry as recent), on whole minutes.
const BASE = Math.floor(Date.now() / 60_000) * 60_000 - 60 * 60_000;
/** The datetime-local text (UTC: the tab's zone) and ISO string `minutes` before BASE. */
const at = (minutes: number) => {
  const iso = new Date(BASE - minutes * 60_000).toISOString();
  return { local: iso.slice(0, 16), iso };
};

/** `count` entries of one user, one a minute back from BASE (newest first = index 0). */
async function seedEntries(username: string, count: number) {
  await prisma.activityLog.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      category: 'event',
      action: 'console_seed',
      success: i % 7 !== 3,
      username,
      ip: '203.0.113.7',
      createdAt: new Date(BASE - i * 60_000),
    })),
  });
  return prisma.activityLog.findMany({ where: { username }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

const actorOf = (username: string): Actor => ({
  user: null,
  userId: null,
  username,
  ip: '198.51.100.4',
  method: 'POST',
  path: '/api/test',
});

const rowIds = (page: Page) =>
  page
    .locator('[data-testid="activity-table"] tbody tr')
    .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id));

/** The query of the last list request of the tab, as an object. */
function lastListQuery(tab: ConsoleTab): Record<string, string> {
  const list = tab.apiRequests.filter(
    (r) => r.startsWith('GET /api/admin/activity-logs') && !/\/(stats|actions)/.test(r),
  );
  const url = new URL(list[list.length - 1].slice(4), 'http://x');
  return Object.fromEntries(url.searchParams);
}

async function applied(page: Page, action: () => Promise<void>) {
  await action();
  await viewReady(page, 'activity');
}

browserDescribe('admin console activity log', () => {
  const tabs = useConsoleTabs();
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createAdmin({ username: unique('organiser_') });
  });

  it('shows the newest entries of the API in its order, with the statistics and the actions as filter options', async () => {
    await seedEntries(unique('seed_'), 3);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console', 'activity');
    expect(await page.locator('h1').allTextContents()).toEqual(['Activity log']);
    expect(await page.locator('[data-testid="activity-table"] thead th[scope="col"]').allTextContents()).toEqual(
      COLUMNS,
    );

    const list = await tabs.server.request.get('/api/admin/activity-logs').set('Authorization', admin.auth).expect(200);
    const stats = await tabs.server.request
      .get('/api/admin/activity-logs/stats')
      .set('Authorization', admin.auth)
      .expect(200);
    const actions = await tabs.server.request
      .get('/api/admin/activity-logs/actions')
      .set('Authorization', admin.auth)
      .expect(200);
    expect(await rowIds(page)).toEqual(list.body.data.map((e: { id: number }) => String(e.id)));
    const first = list.body.data[0];
    const cells = await page.locator(`[data-testid="activity-table"] tr[data-id="${first.id}"] td`).allTextContents();
    expect(cells.slice(1)).toEqual([
      first.category,
      first.action,
      first.username ?? '—',
      first.success ? 'success' : 'failure',
      first.ip ?? '—',
    ]);
    expect(await page.locator(`tr[data-id="${first.id}"] time`).getAttribute('datetime')).toBe(first.createdAt);

    expect(await page.getByTestId('stat-total').textContent()).toBe(String(stats.body.data.total));
    expect(await page.getByTestId('stat-last24h').textContent()).toBe(String(stats.body.data.last24h));
    expect(await page.getByTestId('stat-failures').textContent()).toBe(String(stats.body.data.failures));
    for (const c of ['auth', 'event', 'match', 'admin', 'chat']) {
      expect(await page.getByTestId(`stat-category-${c}`).textContent()).toBe(String(stats.body.data.byCategory[c]));
    }
    const options = await page
      .locator('[data-testid="filter-action"] option')
      .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    expect(options).toEqual(['', ...actions.body.data]);
    expect(await page.getByTestId('live-status').textContent()).toBe('off');
    expect(await page.getByTestId('live-toggle').isChecked()).toBe(false);
    await screenshot(page, 'activity');
  });

  it('applies exactly the filled filters, pages through the result and resets', async () => {
    const username = unique('pager_');
    const entries = await seedEntries(username, 60);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console', 'activity');

    await page.getByTestId('filter-category').selectOption('event');
    await page.getByTestId('filter-username').fill(username.toUpperCase());
    await applied(page, () => page.getByTestId('filter-apply').click());
    expect(lastListQuery(tabs.tab)).toEqual({ category: 'event', username: username.toUpperCase() });
    expect(await page.getByTestId('activity-page').textContent()).toBe('Page 1 of 2');
    expect(await rowIds(page)).toEqual(entries.slice(0, 50).map((e) => String(e.id)));
    expect(await page.getByTestId('activity-prev').isDisabled()).toBe(true);
    expect(await page.getByTestId('activity-next').isDisabled()).toBe(false);

    await applied(page, () => page.getByTestId('activity-next').click());
    expect(lastListQuery(tabs.tab)).toEqual({ category: 'event', username: username.toUpperCase(), page: '2' });
    expect(await page.getByTestId('activity-page').textContent()).toBe('Page 2 of 2');
    expect(await rowIds(page)).toEqual(entries.slice(50).map((e) => String(e.id)));
    expect(await page.getByTestId('activity-next').isDisabled()).toBe(true);
    await applied(page, () => page.getByTestId('activity-prev').click());
    expect(await page.getByTestId('activity-page').textContent()).toBe('Page 1 of 2');

    // success and a time window (datetime-local in the browser's zone, UTC here), applied with Enter
    await page.getByTestId('filter-success').selectOption('false');
    await page.getByTestId('filter-from').fill(at(29).local);
    await page.getByTestId('filter-to').fill(at(0).local);
    await applied(page, () => page.getByTestId('filter-username').press('Enter'));
    expect(lastListQuery(tabs.tab)).toEqual({
      category: 'event',
      username: username.toUpperCase(),
      success: 'false',
      from: at(29).iso,
      to: at(0).iso,
    });
    const expected = entries.slice(0, 30).filter((e) => !e.success);
    expect(await rowIds(page)).toEqual(expected.map((e) => String(e.id)));
    expect(await page.getByTestId('activity-page').textContent()).toBe('Page 1 of 1');
    await screenshot(page, 'activity-filtered');

    await applied(page, () => page.getByTestId('filter-reset').click());
    expect(lastListQuery(tabs.tab)).toEqual({});
    for (const id of [
      'filter-category',
      'filter-action',
      'filter-username',
      'filter-success',
      'filter-from',
      'filter-to',
    ]) {
      expect(await page.getByTestId(id).inputValue()).toBe('');
    }
  });

  it('adds live entries that match the filters as the first row, without fetching the list, until Live is switched off', async () => {
    const watched = unique('live_');
    const other = unique('other_');
    await seedEntries(watched, 2);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console', 'activity');
    await page.getByTestId('filter-username').fill(watched);
    await applied(page, () => page.getByTestId('filter-apply').click());

    await page.getByTestId('live-toggle').check();
    await page.locator('[data-testid="live-status"]', { hasText: /^on$/ }).waitFor({ timeout: 15_000 });
    const listLoads = tabs.tab.apiRequests.length;

    await tabs.server.container.audit.record(actorOf(other), { category: 'event', action: 'console_live' });
    const entry = await tabs.server.container.audit.record(actorOf(watched), {
      category: 'event',
      action: 'console_live',
    });
    const row = page.locator(`[data-testid="activity-table"] tbody tr:first-child[data-id="${entry!.id}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect((await row.locator('td').allTextContents()).slice(1)).toEqual([
      'event',
      'console_live',
      watched,
      'success',
      '198.51.100.4',
    ]);
    expect(await row.locator('time').getAttribute('datetime')).toBe(entry!.createdAt.toISOString());
    expect(await page.locator('[data-testid="activity-table"] tbody tr').count()).toBe(3);
    expect(tabs.tab.apiRequests.length).toBe(listLoads);
    await screenshot(page, 'activity-live');

    await page.getByTestId('live-toggle').uncheck();
    expect(await page.getByTestId('live-status').textContent()).toBe('off');
    const late = await tabs.server.container.audit.record(actorOf(watched), {
      category: 'event',
      action: 'console_live',
    });
    // absence can only be shown by waiting: the live row above arrived well within this time
    await page.waitForTimeout(1500);
    expect(await page.locator(`tr[data-id="${late!.id}"]`).count()).toBe(0);
  });

  it('keeps at most 50 rows when live entries arrive, and shows page 1 when Live starts on another page', async () => {
    const username = unique('cap_');
    await seedEntries(username, 55);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console', 'activity');
    await page.getByTestId('filter-username').fill(username);
    await applied(page, () => page.getByTestId('filter-apply').click());
    await applied(page, () => page.getByTestId('activity-next').click());
    expect(await page.getByTestId('activity-page').textContent()).toBe('Page 2 of 2');

    await page.getByTestId('live-toggle').check();
    await page.locator('[data-testid="live-status"]', { hasText: /^on$/ }).waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="activity-page"]', { hasText: 'Page 1 of 2' }).waitFor();
    await viewReady(page, 'activity');
    const before = await rowIds(page);
    expect(before).toHaveLength(50);

    const entry = await tabs.server.container.audit.record(actorOf(username), {
      category: 'admin',
      action: 'console_cap',
      success: false,
    });
    await page
      .locator(`[data-testid="activity-table"] tbody tr:first-child[data-id="${entry!.id}"]`)
      .waitFor({ timeout: 10_000 });
    expect(await rowIds(page)).toEqual([String(entry!.id), ...before.slice(0, 49)]);
  });
});
