/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { browserDescribe, openSignedIn, screenshot, useConsoleTabs } from '../helpers/console-browser';
import { prisma } from '../helpers/db';
import { createAdmin, createUser, unique, type TestUser } from '../helpers/factories';

/**
 * Reports and suspensions in the admin console (docs/console.md, "Reports" and "Users"): the
 * queue, one report resolved with a note, a user suspended and the suspension lifted; each
 * checked in the page, the database and the activity log.
 */
const COLUMNS = ['Reported', 'Reporter', 'Target', 'Reason', 'Status', 'Details'];

const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));

browserDescribe('admin console reports and suspensions', () => {
  const tabs = useConsoleTabs();
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createAdmin({ username: unique('moderator_') });
  });

  /** Carla reports Bruno (a user report) through the API; the report's id. */
  async function userReport(details = 'rude at the social') {
    const carla = await createUser({ username: unique('carla_') });
    const bruno = await createUser({ username: unique('bruno_') });
    const res = await tabs.server.request
      .post('/api/reports')
      .set('Authorization', carla.auth)
      .send({ targetType: 'user', targetId: bruno.user.username, reason: 'harassment', details })
      .expect(201);
    return { carla, bruno, id: res.body.data.id as number };
  }
  const reportRow = (page: Page, id: number) => page.locator(`[data-testid="reports-table"] tr[data-id="${id}"]`);
  const audit = (action: string, resource: string) =>
    prisma.activityLog.findMany({ where: { action, resource, userId: admin.user.id } });

  it('lists the open reports newest first and opens one with its reporter, target and details', async () => {
    const older = await userReport('first');
    const newer = await userReport('second');
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/reports', 'reports');
    expect(await page.locator('h1').allTextContents()).toEqual(['Reports']);
    expect(await page.locator('[data-testid="reports-table"] thead th[scope="col"]').allTextContents()).toEqual(
      COLUMNS,
    );
    expect(tabs.tab.apiRequests).toContain('GET /api/admin/reports?status=open');
    const ids = await page
      .locator('[data-testid="reports-table"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.id)));
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect((await reportRow(page, newer.id).locator('td').allTextContents()).slice(1)).toEqual([
      newer.carla.user.username,
      `User ${newer.bruno.user.username}`,
      'harassment',
      'open',
      'Open',
    ]);

    await reportRow(page, newer.id).getByTestId('report-open').click();
    await page.getByTestId('report-detail').waitFor();
    expect(await page.getByTestId('report-detail').locator('h2').textContent()).toBe(`Report ${newer.id}`);
    expect(await page.getByTestId('report-status').textContent()).toBe('open');
    expect(await page.getByTestId('suspend-user').textContent()).toBe(newer.bruno.user.username);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('report-heading');
    await screenshot(page, 'reports');
  });

  it('resolves a report with a note: the page, the database and the audit log have the outcome', async () => {
    const { id } = await userReport();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/reports', 'reports');
    await reportRow(page, id).getByTestId('report-open').click();
    await page.getByLabel('Note (optional)').fill('Talked to both; warned.');
    await page.getByTestId('report-resolve').click();
    await page.getByTestId('report-result').waitFor();

    expect(await page.getByTestId('report-status').textContent()).toBe('resolved');
    expect(await reportRow(page, id).locator('td').nth(4).textContent()).toBe('resolved');
    expect(await page.getByTestId('report-resolve').count()).toBe(0);
    expect(await focusedTestId(page)).toBe('report-result');
    const row = await prisma.report.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ status: 'resolved', note: 'Talked to both; warned.', resolvedById: admin.user.id });
    const [entry] = await audit('report_update', `report:${id}`);
    expect(entry.metadata).toEqual({ status: 'resolved', note: 'Talked to both; warned.' });
  });

  it('suspends the reported user from the report: the user row and the audit log have the suspension', async () => {
    const { id, bruno } = await userReport();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/reports', 'reports');
    await reportRow(page, id).getByTestId('report-open').click();
    await page.getByLabel('Reason (shown to nobody but admins)').fill('Harassment at the social');
    await page.getByTestId('suspend-submit').click();
    await page.getByTestId('suspend-result').waitFor();

    expect(await page.getByTestId('suspend-result').textContent()).toBe(
      `${bruno.user.username} is suspended until lifted. Reason: Harassment at the social`,
    );
    expect(await focusedTestId(page)).toBe('suspend-result');
    const user = await prisma.user.findUniqueOrThrow({ where: { id: bruno.user.id } });
    expect(user).toMatchObject({
      suspensionReason: 'Harassment at the social',
      suspendedUntil: null,
      suspendedById: admin.user.id,
    });
    expect(user.suspendedAt).not.toBeNull();
    const [entry] = await audit('user_suspend', `user:${bruno.user.username}`);
    expect(entry.metadata).toEqual({ reason: 'Harassment at the social', until: null });
    await page.getByTestId('suspension').scrollIntoViewIfNeeded();
    await screenshot(page, 'report');
  });

  it('looks a user up and suspends him/her until a time: the database has the end', async () => {
    const dana = await createUser({ username: unique('dana_') });
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/users', 'users');
    await page.getByLabel('Username').fill(dana.user.username);
    await page.getByTestId('user-lookup-submit').click();
    await page.getByTestId('user-profile').waitFor();
    expect(await page.url()).toBe(`${tabs.tab.origin}/console/users/${dana.user.username}`);
    const until = new Date(Date.now() + 3 * 24 * 3600_000);
    until.setUTCSeconds(0, 0);
    await page.getByLabel('Reason (shown to nobody but admins)').fill('Spam');
    await page.getByLabel('Until (optional)').fill(until.toISOString().slice(0, 16));
    await page.getByTestId('suspend-submit').click();
    await page.getByTestId('suspend-result').waitFor();

    expect(await page.getByTestId('suspend-result').locator('time').getAttribute('datetime')).toBe(until.toISOString());
    const user = await prisma.user.findUniqueOrThrow({ where: { id: dana.user.id } });
    expect(user.suspendedUntil?.toISOString()).toBe(until.toISOString());
    await screenshot(page, 'users');
  });

  it('lifts a suspension from the user lookup: the database and the audit log have it', async () => {
    const erik = await createUser({ username: unique('erik_') });
    await tabs.server.request
      .post(`/api/admin/users/${erik.user.username}/suspend`)
      .set('Authorization', admin.auth)
      .send({ reason: 'Cooling off' })
      .expect(200);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/users/${erik.user.username}`, 'users');
    await page.getByTestId('unsuspend-submit').click();
    await page.getByTestId('suspend-result').waitFor();

    expect(await page.getByTestId('suspend-result').textContent()).toBe(`${erik.user.username} is not suspended.`);
    const user = await prisma.user.findUniqueOrThrow({ where: { id: erik.user.id } });
    expect(user.suspendedAt).toBeNull();
    const [entry] = await audit('user_unsuspend', `user:${erik.user.username}`);
    expect(entry.success).toBe(true);
  });
});
