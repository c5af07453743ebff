/// <reference lib="dom" />
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import {
  browserDescribe,
  openSignedIn,
  screenshot,
  signIn,
  viewReady,
  useConsoleTabs,
} from '../helpers/console-browser';
import { prisma } from '../helpers/db';
import {
  createAdmin,
  createEvent,
  createUser,
  divisionId,
  joinEvent,
  unique,
  type TestUser,
} from '../helpers/factories';

/** Events, one event (facts, edit) and the venue screen of the admin console (docs/console.md). */
const text = (page: Page, testid: string) => page.getByTestId(testid).textContent();

async function fillEventForm(
  page: Page,
  prefix: string,
  v: { name?: string; location?: string; start?: string; end?: string; description?: string },
) {
  if (v.name !== undefined) await page.getByTestId(`${prefix}-name`).fill(v.name);
  if (v.location !== undefined) await page.getByTestId(`${prefix}-location`).fill(v.location);
  if (v.start !== undefined) await page.getByTestId(`${prefix}-start`).fill(v.start);
  if (v.end !== undefined) await page.getByTestId(`${prefix}-end`).fill(v.end);
  if (v.description !== undefined) await page.getByTestId(`${prefix}-description`).fill(v.description);
}

/** The QR code as the venue screen shows it: a screenshot of the image (PNG), decoded. */
async function decodeVenueQr(page: Page): Promise<string | undefined> {
  const png = PNG.sync.read(await page.getByTestId('venue-qr').screenshot());
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

browserDescribe('admin console events, event and venue screen', () => {
  const tabs = useConsoleTabs();
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createAdmin({ username: unique('organiser_') });
  });

  it('lists the events of the API in its order with links, times and participants', async () => {
    const event = await createEvent({ name: 'Warsaw Swing Open', location: 'Warsaw, Poland' });
    await joinEvent((await createUser()).user, event);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/events', 'events');
    expect(await page.locator('h1').allTextContents()).toEqual(['Events']);
    expect(await page.locator('[data-testid="events-table"] thead th[scope="col"]').allTextContents()).toEqual([
      'Name',
      'Location',
      'Start',
      'End',
      'Participants',
    ]);
    const list = await tabs.server.request.get('/api/events').set('Authorization', admin.auth).expect(200);
    const slugs = await page
      .locator('[data-testid="events-table"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.slug));
    expect(slugs).toEqual(list.body.data.map((e: { slug: string }) => e.slug));
    const row = page.locator(`[data-testid="events-table"] tr[data-slug="${event.slug}"]`);
    expect(await row.locator('a').getAttribute('href')).toBe(`/console/events/${event.slug}`);
    expect(await row.locator('td').allTextContents()).toEqual([
      'Warsaw Swing Open',
      'Warsaw, Poland',
      expect.any(String),
      expect.any(String),
      '1',
    ]);
    expect(await row.locator('time').evaluateAll((t) => t.map((x) => x.getAttribute('datetime')))).toEqual([
      event.startDate.toISOString(),
      event.endDate.toISOString(),
    ]);
    await screenshot(page, 'events');

    await row.locator('a').click();
    await viewReady(page, 'event');
    expect(new URL(page.url()).pathname).toBe(`/console/events/${event.slug}`);
  });

  it('creates an event from the form and opens it', async () => {
    const name = `Berlin Swing Weekend ${unique('')}`;
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/events', 'events');
    await fillEventForm(page, 'event-create', {
      name,
      location: 'Berlin, Germany',
      start: '2027-05-14T18:00',
      end: '2027-05-16T23:30',
    });
    await page.getByTestId('event-create-submit').click();
    await viewReady(page, 'event');
    expect(await page.locator('h1').textContent()).toBe(name);

    const stored = await prisma.event.findFirstOrThrow({ where: { name } });
    expect(new URL(page.url()).pathname).toBe(`/console/events/${stored.slug}`);
    expect(stored).toMatchObject({ location: 'Berlin, Germany', description: null });
    expect(stored.startDate.toISOString()).toBe('2027-05-14T18:00:00.000Z');
    expect(stored.endDate.toISOString()).toBe('2027-05-16T23:30:00.000Z');
    const audit = await prisma.activityLog.findFirst({
      where: { action: 'event_create', resource: `event:${stored.slug}` },
    });
    expect(audit).toMatchObject({ userId: admin.user.id, success: true });
  });

  it("shows the API's error and every detail when a creation is refused, keeping the form", async () => {
    const name = `Refused ${unique('')}`;
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/events', 'events');
    await fillEventForm(page, 'event-create', {
      name,
      location: 'Paris',
      start: '2027-05-16T10:00',
      end: '2027-05-14T10:00',
      description: 'Backwards',
    });
    await page.getByTestId('event-create-submit').click();
    const error = page.getByTestId('event-create-error');
    await error.waitFor();
    expect(await error.locator('p').textContent()).toBe('Validation failed');
    expect(await error.locator('li').allTextContents()).toEqual(['endDate must not be before startDate']);
    expect(await page.getByTestId('event-create-name').inputValue()).toBe(name);
    expect(await page.getByTestId('event-create-description').inputValue()).toBe('Backwards');
    expect(await prisma.event.count({ where: { name } })).toBe(0);
  });

  it("shows an event's facts, slots in order with division names, and the links to the venue screen and matching", async () => {
    const [nov, int, adv] = await Promise.all([divisionId('NOV'), divisionId('INT'), divisionId('ADV')]);
    const event = await createEvent({
      name: 'Lisbon Swing Fest',
      location: 'Lisbon, Portugal',
      registrationDeadline: new Date('2027-01-20T12:00:00.000Z'),
      scheduleConfig: {
        slots: [
          { order: 2, divisionIds: [adv] },
          { order: 1, divisionIds: [nov, int] },
        ],
      },
    });
    for (let i = 0; i < 2; i++) await joinEvent((await createUser()).user, event);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}`, 'event');
    const names = Object.fromEntries((await prisma.division.findMany()).map((d) => [d.id, d.name]));
    expect(await page.locator('h1').allTextContents()).toEqual(['Lisbon Swing Fest']);
    expect(await text(page, 'event-location')).toBe('Lisbon, Portugal');
    expect(await page.getByTestId('event-start').getAttribute('datetime')).toBe(event.startDate.toISOString());
    expect(await page.getByTestId('event-end').getAttribute('datetime')).toBe(event.endDate.toISOString());
    expect(await text(page, 'event-participants')).toBe('2');
    expect(await page.getByTestId('event-deadline').getAttribute('datetime')).toBe('2027-01-20T12:00:00.000Z');
    expect(await page.locator('[data-testid="event-slots"] li').allTextContents()).toEqual([
      `Slot 1: ${names[nov]}, ${names[int]}`,
      `Slot 2: ${names[adv]}`,
    ]);
    expect(await page.getByTestId('venue-link').getAttribute('href')).toBe(`/console/events/${event.slug}/venue`);
    expect(await page.getByTestId('matching-link').getAttribute('href')).toBe(`/console/events/${event.slug}/matching`);
    await screenshot(page, 'event');
  });

  it('says "none" without a deadline and "Every division is its own slot" without slots', async () => {
    const event = await createEvent();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}`, 'event');
    expect(await text(page, 'event-deadline')).toBe('none');
    expect(await text(page, 'event-slots')).toBe('Every division is its own slot');
    expect(await page.locator('[data-testid="event-slots"] li').count()).toBe(0);
  });

  it('edits an event with the prefilled form and shows the answer', async () => {
    const event = await createEvent({
      name: 'Prague Swing Days',
      location: 'Prague',
      startDate: new Date('2027-06-01T09:00:00.000Z'),
      endDate: new Date('2027-06-03T20:00:00.000Z'),
      description: 'Three days',
    });
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}`, 'event');
    expect(await page.getByTestId('event-edit-name').inputValue()).toBe('Prague Swing Days');
    expect(await page.getByTestId('event-edit-start').inputValue()).toBe('2027-06-01T09:00');
    expect(await page.getByTestId('event-edit-end').inputValue()).toBe('2027-06-03T20:00');
    expect(await page.getByTestId('event-edit-description').inputValue()).toBe('Three days');

    await fillEventForm(page, 'event-edit', {
      name: 'Prague Swing Days 2027',
      location: 'Prague, Czechia',
      end: '2027-06-04T18:00',
      description: '',
    });
    await page.getByTestId('event-edit-submit').click();
    await page.locator('h1', { hasText: 'Prague Swing Days 2027' }).waitFor();
    expect(await text(page, 'event-location')).toBe('Prague, Czechia');
    expect(await page.getByTestId('event-end').getAttribute('datetime')).toBe('2027-06-04T18:00:00.000Z');
    const stored = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    expect(stored).toMatchObject({ name: 'Prague Swing Days 2027', location: 'Prague, Czechia', description: null });
    expect(stored.endDate.toISOString()).toBe('2027-06-04T18:00:00.000Z');
    expect(await prisma.activityLog.count({ where: { action: 'event_update', resource: `event:${event.slug}` } })).toBe(
      1,
    );
  });

  it('shows the error of a refused edit and changes nothing', async () => {
    const event = await createEvent({
      name: 'Vienna Swing',
      startDate: new Date('2027-07-01T09:00:00.000Z'),
      endDate: new Date('2027-07-02T09:00:00.000Z'),
    });
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, `/console/events/${event.slug}`, 'event');
    await fillEventForm(page, 'event-edit', { name: 'Renamed', end: '2027-06-30T09:00' });
    await page.getByTestId('event-edit-submit').click();
    const error = page.getByTestId('event-edit-error');
    await error.waitFor();
    expect(await error.locator('li').allTextContents()).toEqual(['endDate must not be before startDate']);
    expect(await page.locator('h1').textContent()).toBe('Vienna Swing');
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).name).toBe('Vienna Swing');
  });

  it('says "Event not found" for an unknown slug', async () => {
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, '/console/events/nosuchevent000', 'event');
    expect(await page.locator('h1').allTextContents()).toEqual(['Event not found']);
  });

  it('opens a deep-linked venue screen after sign-in: the QR code decodes to the check-in URL, large and wholly visible', async () => {
    const event = await createEvent({ name: 'Budapest Swing Marathon' });
    const { page } = tabs.tab;
    await page.goto(`${tabs.server.url}/console/events/${event.slug}/venue`);
    await signIn(page, admin.user.email, admin.password);
    await viewReady(page, 'venue');

    const details = await tabs.server.request
      .get(`/api/events/${event.slug}/details`)
      .set('Authorization', admin.auth)
      .expect(200);
    const url = details.body.data.checkin.url as string;
    expect(await text(page, 'venue-name')).toBe('Budapest Swing Marathon');
    expect(await page.locator('h1').count()).toBe(1);
    expect(await text(page, 'venue-url')).toBe(url);
    expect(await page.locator('nav').count()).toBe(0);
    expect(await page.getByTestId('venue-qr').getAttribute('src')).toMatch(/^blob:/);
    expect(await decodeVenueQr(page)).toBe(url);

    const box = await page.getByTestId('venue-qr').boundingBox();
    expect(box).not.toBeNull();
    expect(Math.min(box!.width, box!.height)).toBeGreaterThanOrEqual(400);
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
    expect(box!.y + box!.height).toBeLessThanOrEqual(800);
    expect(await page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight)).toBe(true);
    await screenshot(page, 'venue');
  });
});
