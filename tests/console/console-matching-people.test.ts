/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import type { Event } from '../../src/generated/prisma/client';
import { browserDescribe, openSignedIn, screenshot, useConsoleTabs } from '../helpers/console-browser';
import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser, joinEvent, unique, type TestUser } from '../helpers/factories';
import { heat, runMatching } from '../helpers/matching';

/**
 * The people side of the console's matching view (docs/console.md, "Matching"): settings, the
 * heats with their recorder and why, pins, removals and absences; each checked in the page, in
 * the database and in the activity log.
 */

/** Dora dances NOV heat 1; Rico (same city) is free to record it; Xena dances NOV heat 1 too. */
async function pinScenario() {
  const event = await createEvent({ name: 'Basel Swing Weekend' });
  const make = async (name: string) => {
    const u = await createUser({ username: unique(`${name}_`), city: 'Basel', country: 'Switzerland' });
    await joinEvent(u.user, event);
    return u;
  };
  const dora = await make('dora');
  const rico = await make('rico');
  const xena = await make('xena');
  const doraHeat = await heat(dora, event, { division: 'NOV', n: 1 });
  await heat(xena, event, { division: 'NOV', n: 1 });
  return { event, dora, rico, xena, doraHeat };
}

const heatRow = (page: Page, heatId: number) =>
  page.locator(`[data-testid="heats-table"] tr[data-heat-id="${heatId}"]`);
const cells = (page: Page, heatId: number) => heatRow(page, heatId).locator('td').allTextContents();
const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
const matchingPath = (event: Event) => `/console/events/${event.slug}/matching`;

browserDescribe('admin console matching: settings, pins, removals, absences', () => {
  const tabs = useConsoleTabs();
  let admin: TestUser;

  beforeAll(async () => {
    admin = await createAdmin({ username: unique('organiser_') });
  });

  const auditRows = (action: string, event: Event) =>
    prisma.activityLog.findMany({ where: { action, userId: admin.user.id, resource: `event:${event.slug}` } });

  it('saves the matching settings from the form: the answer is shown, the row and the audit entry are written', async () => {
    const { event } = await pinScenario();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    const value = (testid: string) => page.getByTestId(testid).inputValue();
    expect(
      await Promise.all(
        ['settings-buffer-before', 'settings-buffer-after', 'settings-max-recordings', 'settings-opt-out-mode'].map(
          value,
        ),
      ),
    ).toEqual(['0', '1', '3', 'last']);

    await page.getByLabel('Buffer before (heats)', { exact: true }).selectOption('1');
    await page.getByLabel('Buffer after (heats)', { exact: true }).selectOption('2');
    await page.getByLabel('Recordings per person (max)').selectOption('2');
    await page.getByLabel('Opted-out participants').selectOption('exclude');
    await page.getByTestId('settings-submit').click();
    await page.getByTestId('settings-saved').waitFor();

    expect(await prisma.eventMatchingSettings.findUniqueOrThrow({ where: { eventId: event.id } })).toMatchObject({
      bufferBefore: 1,
      bufferAfter: 2,
      maxRecordingsPerPerson: 2,
      optOutMode: 'exclude',
    });
    const [entry] = await auditRows('matching_settings_update', event);
    expect(entry.metadata).toEqual({
      previous: { bufferBefore: 0, bufferAfter: 1, maxRecordingsPerPerson: 3, optOutMode: 'last' },
      next: { bufferBefore: 1, bufferAfter: 2, maxRecordingsPerPerson: 2, optOutMode: 'exclude' },
    });
    expect(await focusedTestId(page)).toBe('settings-saved');
  });

  it('shows each heat with its current recorder and the why of the suggestion', async () => {
    const { event, dora, rico, doraHeat } = await pinScenario();
    await runMatching(event, admin);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    expect(await page.locator('[data-testid="heats-table"] thead th[scope="col"]').allTextContents()).toEqual([
      'Heat',
      'Dancer',
      'Recorder',
      'Status',
      'Why',
      'Actions',
    ]);
    const suggestion = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: doraHeat.id } });
    expect(suggestion).toMatchObject({
      recorderId: rico.user.id,
      why: { locality: 'city', optOut: false, recorderBalance: 0, pinned: false },
    });
    expect(await cells(page, doraHeat.id)).toEqual([
      'J&J NOV heat 1',
      dora.user.username,
      rico.user.username,
      'pending',
      'same city · balance 0',
      'Pin… Remove',
    ]);
  });

  it('pins a recorder to a heat: the row shows the pinned suggestion, the database and the audit log have it', async () => {
    const { event, rico, doraHeat } = await pinScenario();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    await heatRow(page, doraHeat.id).getByTestId('heat-pin').click();
    expect(await focusedTestId(page)).toBe('pin-recorder');
    await page.getByLabel('Recorder', { exact: true }).selectOption(String(rico.user.id));
    await page.getByTestId('pin-submit').click();
    await page.getByTestId('pin-result').waitFor();

    const pinned = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: doraHeat.id } });
    expect(pinned).toMatchObject({ recorderId: rico.user.id, status: 'pending', pinned: true, originRunId: null });
    const row = await cells(page, doraHeat.id);
    expect(row.slice(2, 5)).toEqual([rico.user.username, 'pending (pinned)', 'same city · balance 0 · pinned']);
    expect(await heatRow(page, doraHeat.id).getAttribute('data-suggestion-id')).toBe(String(pinned.id));
    const [entry] = await auditRows('recording_suggestion_pin', event);
    expect(entry.metadata).toMatchObject({ suggestionId: pinned.id, heatId: doraHeat.id, recorderId: rico.user.id });
    expect(await focusedTestId(page)).toBe('pin-result');
    await page.locator('#heats-heading').scrollIntoViewIfNeeded();
    await screenshot(page, 'matching-pins');
  });

  it('shows the rule a refused pin broke (code and message) and changes nothing', async () => {
    const { event, xena, doraHeat } = await pinScenario();
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    await page.getByLabel('Heat', { exact: true }).selectOption(String(doraHeat.id));
    await page.getByLabel('Recorder', { exact: true }).selectOption(String(xena.user.id));
    await page.getByTestId('pin-submit').click();
    await page.getByTestId('pin-error').waitFor();

    expect(await page.getByTestId('pin-error').textContent()).toBe(
      'The recorder dances at the time of this heat RECORDER_DANCING',
    );
    expect(await focusedTestId(page)).toBe('pin-error');
    expect(await prisma.recordingSuggestion.count({ where: { heatId: doraHeat.id } })).toBe(0);
    expect(await auditRows('recording_suggestion_pin', event)).toEqual([]);
    expect((await cells(page, doraHeat.id)).slice(2, 4)).toEqual(['—', '—']);
  });

  it("removes a heat's pending suggestion: the row shows it removed, the database and the audit log have it", async () => {
    const { event, rico, doraHeat } = await pinScenario();
    await runMatching(event, admin);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    await heatRow(page, doraHeat.id)
      .getByRole('button', { name: /^Remove the suggestion/ })
      .click();
    await page.getByTestId('plan-result').waitFor();

    expect((await cells(page, doraHeat.id)).slice(2, 4)).toEqual([rico.user.username, 'removed']);
    expect(await heatRow(page, doraHeat.id).getByTestId('suggestion-remove').count()).toBe(0);
    const removed = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: doraHeat.id } });
    expect(removed.status).toBe('removed');
    const [entry] = await auditRows('recording_suggestion_remove', event);
    expect(entry.success).toBe(true);
    expect(await focusedTestId(page)).toBe('plan-result');
  });

  it('marks a participant absent: his/her suggestions as recorder are cancelled, in the page and the database', async () => {
    const { event, rico, doraHeat } = await pinScenario();
    await runMatching(event, admin);
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    const recording = await prisma.recordingSuggestion.count({
      where: { eventId: event.id, recorderId: rico.user.id, status: 'pending' },
    });
    expect(recording).toBe(2); // Dora's heat and Xena's
    const row = page.locator(`[data-testid="participants-table"] tr[data-user-id="${rico.user.id}"]`);
    expect(await row.getByTestId('absent-state').textContent()).toBe('—');
    await row.getByTestId('absent-mark').click();
    await page.getByTestId('absent-result').waitFor();

    expect(await row.getByTestId('absent-state').textContent()).toBe('yes');
    expect(await page.getByTestId('absent-result').textContent()).toBe(
      `${rico.user.username} is marked absent; 2 suggestion(s) as recorder cancelled.`,
    );
    expect((await cells(page, doraHeat.id)).slice(2, 4)).toEqual([rico.user.username, 'cancelled']);
    const participant = await prisma.eventParticipant.findFirstOrThrow({
      where: { eventId: event.id, userId: rico.user.id },
    });
    expect(participant.absentAt).not.toBeNull();
    expect((await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: doraHeat.id } })).status).toBe(
      'cancelled',
    );
    const [entry] = await auditRows('participant_absent', event);
    expect(entry.metadata).toEqual({ userId: rico.user.id, absent: true, cancelledSuggestions: 2 });
    expect(await focusedTestId(page)).toBe('absent-result');
    await screenshot(page, 'matching-absent');
  });

  it('clears the absent mark: the page shows it, the database and the audit log have it', async () => {
    const { event, rico } = await pinScenario();
    await prisma.eventParticipant.updateMany({
      where: { eventId: event.id, userId: rico.user.id },
      data: { absentAt: new Date() },
    });
    const { page } = tabs.tab;
    await openSignedIn(tabs.tab, admin.token, matchingPath(event), 'matching');
    const row = page.locator(`[data-testid="participants-table"] tr[data-user-id="${rico.user.id}"]`);
    await row.getByRole('button', { name: `Clear absent: ${rico.user.username}` }).click();
    await page.getByTestId('absent-result').waitFor();

    expect(await row.getByTestId('absent-state').textContent()).toBe('no');
    const participant = await prisma.eventParticipant.findFirstOrThrow({
      where: { eventId: event.id, userId: rico.user.id },
    });
    expect(participant.absentAt).toBeNull();
    const [entry] = await auditRows('participant_absent_cleared', event);
    expect(entry.success).toBe(true);
  });
});
