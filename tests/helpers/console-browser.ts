/// <reference lib="dom" />
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './server';

/**
 * The admin console in Debian's Chromium (playwright-core, no downloaded browser): a 1280×800
 * window in UTC, as docs/console.md describes. Without Chromium the browser tests are skipped
 * with a notice, except with CI=true, where they fail.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM_PATH);
const inCi = process.env.CI === 'true';

/** `describe` for a block of browser tests: skipped visibly without Chromium outside CI. */
export function browserDescribe(name: string, fn: () => void): void {
  if (!haveChromium && !inCi) {
    console.warn(
      `\n*** SKIPPED "${name}": no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH) ***\n`,
    );
    describe.skip(name, fn);
    return;
  }
  describe(name, fn);
}

export async function launchBrowser(): Promise<Browser> {
  if (!haveChromium) throw new Error(`CI=true needs Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Chrome's own line for a 4xx API answer the page shows (e.g. a wrong password): not a page error. */
const API_4XX_LINE = /^Failed to load resource: the server responded with a status of 4\d\d/;

/** A tab of its own (fresh sessionStorage) on the console, recording everything the page must never do. */
export interface ConsoleTab {
  page: Page;
  context: BrowserContext;
  origin: string;
  /** API requests the page made (method and path with query), in order. */
  apiRequests: string[];
  /** Page errors, console errors, CSP violations, requests to another host, console assets ≥ 400. */
  problems(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openTab(browser: Browser, serverUrl: string): Promise<ConsoleTab> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    timezoneId: 'UTC',
    locale: 'en-GB',
    acceptDownloads: true,
  });
  await context.addInitScript(() => {
    const w = globalThis as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e: { violatedDirective: string; blockedURI: string }) =>
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const page = await context.newPage();
  const origin = new URL(serverUrl).origin;
  const found: string[] = [];
  const apiRequests: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !API_4XX_LINE.test(msg.text())) found.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => found.push(`uncaught: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('data:') || url.startsWith('blob:')) return;
    const parsed = new URL(url);
    if (parsed.origin !== origin) found.push(`request to another host: ${url}`);
    else if (parsed.pathname.startsWith('/api/'))
      apiRequests.push(`${req.method()} ${parsed.pathname}${parsed.search}`);
  });
  page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.origin === origin && url.pathname.startsWith('/console') && res.status() >= 400)
      found.push(`console asset ${url.pathname} → ${res.status()}`);
  });
  return {
    page,
    context,
    origin,
    apiRequests,
    problems: async () => {
      const csp = page.isClosed()
        ? []
        : await page.evaluate(() => (globalThis as unknown as { __csp?: string[] }).__csp ?? []).catch(() => []);
      return [...found, ...csp.map((c) => `CSP violation: ${c}`)];
    },
    close: () => context.close(),
  };
}

/** The view's root once its data is shown (`aria-busy="false"`). */
export async function viewReady(page: Page, name: string): Promise<void> {
  await page.locator(`[data-testid="view-${name}"][aria-busy="false"]`).waitFor({ timeout: 20_000 });
}

/** Signs in through the form. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
}

/** Opens a console path already signed in (the token kept in this tab's sessionStorage). */
export async function openSignedIn(tab: ConsoleTab, token: string, consolePath: string, view: string): Promise<void> {
  await tab.page.goto(`${tab.origin}/console`);
  await viewReady(tab.page, 'login');
  await tab.page.evaluate(
    (t) =>
      (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem(
        'consoleToken',
        t,
      ),
    token,
  );
  await tab.page.goto(`${tab.origin}${consolePath}`);
  await viewReady(tab.page, view);
}

/**
 * A screenshot of the window (1280×800): into docs/console/ with CONSOLE_SCREENSHOTS=1 (the
 * pictures of docs/console.md), else into test-artifacts/console/.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const root = path.join(__dirname, '..', '..');
  const dir =
    process.env.CONSOLE_SCREENSHOTS === '1'
      ? path.join(root, 'docs', 'console')
      : path.join(root, 'test-artifacts', 'console');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/** What `useConsoleTabs()` gives a test file: the server and browser of the file, and this test's tab. */
export interface ConsoleTabs {
  readonly server: TestServer;
  readonly browser: Browser;
  /** A fresh tab per test (its own sessionStorage), checked for problems and closed after the test. */
  readonly tab: ConsoleTab;
}

/**
 * The hooks every console browser test file shares: one test server and one Chromium for the
 * file, a fresh tab per test, and after each test the tab's problems (page errors, console
 * errors, CSP violations, requests to another host, console assets ≥ 400) must be none.
 * Call it inside `browserDescribe`; read `tabs.tab` / `tabs.server` inside the tests.
 */
export function useConsoleTabs(options: Parameters<typeof startTestServer>[0] = undefined): ConsoleTabs {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let tab: ConsoleTab | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    tab = await openTab(browser!, server!.url);
  });
  afterEach(async () => {
    const problems = await tab!.problems();
    await tab!.close();
    expect(problems).toEqual([]);
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useConsoleTabs: no ${what} yet (read it inside a test)`);
    return value;
  };
  return {
    get server() {
      return ready(server, 'server');
    },
    get browser() {
      return ready(browser, 'browser');
    },
    get tab() {
      return ready(tab, 'tab');
    },
  };
}
