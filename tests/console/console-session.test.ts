/// <reference lib="dom" />
import jwt from 'jsonwebtoken';
import {
  browserDescribe,
  openSignedIn,
  openTab,
  screenshot,
  signIn,
  viewReady,
  type ConsoleTab,
  useConsoleTabs,
} from '../helpers/console-browser';
import { prisma } from '../helpers/db';
import { createAdmin, createUser } from '../helpers/factories';
import { startTestServer } from '../helpers/server';

/** The API calls of the page but the CSRF token's (fetched before the first POST, whether or not CSRF is on). */
const apiCalls = (tab: ConsoleTab) => tab.apiRequests.filter((r) => r !== 'GET /api/csrf-token');

/** Sign-in and session of the admin console (docs/console.md), in Chromium. */
browserDescribe('admin console sign-in and session', () => {
  const tabs = useConsoleTabs();

  it('shows the sign-in form without a token and asks nothing of the admin API', async () => {
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console/events`);
    await viewReady(page, 'login');
    await expect(page.locator('h1').allTextContents()).resolves.toEqual(['Sign in']);
    expect(await page.locator('nav').count()).toBe(0);
    expect(await page.getByLabel('E-mail').getAttribute('data-testid')).toBe('login-email');
    expect(await page.getByLabel('Password').getAttribute('data-testid')).toBe('login-password');
    expect(tabs.tab.apiRequests).toEqual([]);
    await screenshot(page, 'login');
  });

  it('signs an admin in: the view of the path opens with the navigation, and a reload keeps the session', async () => {
    const admin = await createAdmin({ username: 'organiser_console' + Date.now().toString(36) });
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console/events`);
    await signIn(page, admin.user.email, admin.password);
    await viewReady(page, 'events');
    expect(await page.getByTestId('signed-in-user').textContent()).toBe(admin.user.username);
    expect(await page.getByTestId('nav-activity').getAttribute('href')).toBe('/console');
    expect(await page.getByTestId('nav-events').getAttribute('href')).toBe('/console/events');
    const token = await page.evaluate(() => sessionStorage.getItem('consoleToken'));
    expect(token).toMatch(/^ey/);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect((await tabs.tab.context.cookies()).map((c) => c.value)).not.toContain(token);
    expect(apiCalls(tabs.tab)[0]).toBe('POST /api/auth/login');

    await page.reload();
    await viewReady(page, 'events');
    expect(tabs.tab.apiRequests).toContain('GET /api/users/me');
    await page.getByTestId('nav-activity').click();
    await viewReady(page, 'activity');
    expect(new URL(page.url()).pathname).toBe('/console');
  });

  it('signs out: the token is gone, the sign-in shows at /console, and a reload stays signed out', async () => {
    const admin = await createAdmin();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/events', 'events');
    await page.getByTestId('sign-out').click();
    await viewReady(page, 'login');
    expect(new URL(page.url()).pathname).toBe('/console');
    expect(await page.evaluate(() => sessionStorage.getItem('consoleToken'))).toBeNull();
    await page.reload();
    await viewReady(page, 'login');
  });

  it('shows only "Admin access required" to a user who is not an admin, keeping no token', async () => {
    const user = await createUser();
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console`);
    await signIn(page, user.user.email, user.password);
    await viewReady(page, 'admin-required');
    expect(await page.locator('h1').allTextContents()).toEqual(['Admin access required']);
    expect(await page.locator('nav, table, form').count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('consoleToken'))).toBeNull();
    expect(apiCalls(tabs.tab)).toEqual(['POST /api/auth/login']);
    await screenshot(page, 'admin-required');
    await page.getByTestId('sign-out').click();
    await viewReady(page, 'login');
  });

  it("shows the API's error for a wrong password and keeps the form", async () => {
    const admin = await createAdmin();
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console`);
    await signIn(page, admin.user.email, 'wrong-password');
    await expect(page.getByTestId('login-error').textContent()).resolves.toBe('Invalid email or password');
    expect(await page.getByTestId('login-email').inputValue()).toBe(admin.user.email);
    expect(await page.evaluate(() => sessionStorage.getItem('consoleToken'))).toBeNull();
    expect(await page.getByTestId('view-login').getAttribute('aria-busy')).toBe('false');
  });

  it("drops a kept token the API refuses and shows the sign-in with the API's error", async () => {
    const admin = await createAdmin();
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console`);
    const forged = jwt.sign({ sub: String(admin.user.id) }, 'another-secret-that-is-at-least-32-characters', {
      expiresIn: '1h',
    });
    await page.evaluate((t) => sessionStorage.setItem('consoleToken', t), forged);
    await page.goto(`${tabs.server.url}/console/events`);
    await viewReady(page, 'login');
    expect(await page.getByTestId('login-error').textContent()).toBe('Invalid or expired token');
    expect(await page.evaluate(() => sessionStorage.getItem('consoleToken'))).toBeNull();
  });

  it('opens the admin-required view when the kept token belongs to a user who is no longer an admin', async () => {
    const user = await createUser();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, user.token, '/console', 'admin-required');
    expect(await page.locator('nav, table').count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('consoleToken'))).toBeNull();
  });

  it("ends the session when a later API call answers 401, showing the API's error", async () => {
    const admin = await createAdmin();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console', 'activity');
    await prisma.user.delete({ where: { id: admin.user.id } });
    await page.getByTestId('nav-events').click();
    await viewReady(page, 'login');
    expect(await page.getByTestId('login-error').textContent()).toBe('Invalid or expired token');
    expect(await page.evaluate(() => sessionStorage.getItem('consoleToken'))).toBeNull();
    expect(await page.locator('nav').count()).toBe(0);
  });

  it('is usable with the keyboard alone: sign in with Tab and Enter, then open Events from the navigation', async () => {
    const admin = await createAdmin();
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console`);
    await viewReady(page, 'login');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('login-email');
    await page.keyboard.type(admin.user.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(admin.password);
    await page.keyboard.press('Enter');
    await viewReady(page, 'activity');
    await page.getByTestId('nav-activity').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('nav-events');
    await page.keyboard.press('Enter');
    await viewReady(page, 'events');
    expect(new URL(page.url()).pathname).toBe('/console/events');
  });

  it('with CSRF on, gets the CSRF token once and sends it with the login and every change', async () => {
    const csrfServer = await startTestServer({ csrf: { enabled: true } });
    const csrfTab = await openTab(tabs.browser, csrfServer.url);
    try {
      const admin = await createAdmin();
      const { page } = csrfTab;
      const sent: (string | undefined)[] = [];
      page.on('request', (req) => {
        if (req.method() === 'POST') sent.push(req.headers()['x-csrf-token']);
      });
      await page.goto(`${csrfServer.url}/console/events`);
      await signIn(page, admin.user.email, admin.password);
      await viewReady(page, 'events');
      await page.getByTestId('event-create-name').fill('CSRF Open');
      await page.getByTestId('event-create-location').fill('Berlin');
      await page.getByTestId('event-create-start').fill('2027-03-01T10:00');
      await page.getByTestId('event-create-end').fill('2027-03-03T18:00');
      await page.getByTestId('event-create-submit').click();
      await viewReady(page, 'event');
      expect(csrfTab.apiRequests.filter((r) => r === 'GET /api/csrf-token')).toHaveLength(1);
      expect(sent).toHaveLength(2);
      for (const token of sent) expect(token).toMatch(/.{16,}/);
      expect(await csrfTab.problems()).toEqual([]);
    } finally {
      await csrfTab.close();
      await csrfServer.close();
    }
  }, 60_000);
});
