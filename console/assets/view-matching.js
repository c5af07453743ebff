/**
 * Matching (`/console/events/:slug/matching`): the event's runs (newest first), a preview
 * (dry run, writes nothing), Run now, and the selected run's suggestions and unfilled heats
 * with their reasons; the CSV of the latest successful run as a download. Below them the
 * people side (matching-people.js): settings, heats with their recorder and "why", pins,
 * removals and absences.
 */
import { ApiError, dispositionFileName, get, post, request, SessionEnded, slugPath } from './api.js';
import { fill, h, heatLabel, NONE, table, time } from './dom.js';
import { matchingPeople } from './matching-people.js';

const RUN_COLUMNS = ['Status', 'Trigger', 'Started', 'Finished', 'Heats', 'Assigned', 'Unassigned', 'Details'];
const SUGGESTION_COLUMNS = ['Heat', 'Dancer', 'Recorder', 'Status'];
const UNFILLED_COLUMNS = ['Heat', 'Dancer', 'Reason'];

const username = (user) => user?.username || NONE;
const figure = (value) => (value === null || value === undefined ? NONE : String(value));

export function matchingView(ctx) {
  const api = `/api/admin/events/${slugPath(ctx.slug)}/matching-runs`;
  const state = { runs: [], selectedId: null, loads: 0, eventName: null };

  const heading = h('h1', {}, 'Matching');
  const previewButton = h('button', { type: 'button', testid: 'run-preview', onclick: preview }, 'Preview (dry run)');
  const runButton = h('button', { type: 'button', testid: 'run-now', class: 'primary', onclick: runNow }, 'Run now');
  const errorSlot = h('div', { class: 'slot' });
  const previewSlot = h('div', { class: 'slot' });
  const runTable = table('run-table', 'Matching runs, newest first', RUN_COLUMNS, []);
  const runBody = runTable.tBodies[0];
  const selectedSlot = h('div');
  const people = matchingPeople({ ...ctx, runs: () => state.runs });
  const content = h(
    'div',
    {},
    h('p', {}, h('a', { href: `/console/events/${encodeURIComponent(ctx.slug)}` }, 'Back to the event')),
    h('div', { class: 'actions' }, previewButton, runButton),
    errorSlot,
    previewSlot,
    h(
      'section',
      { 'aria-labelledby': 'runs-heading' },
      h('h2', { id: 'runs-heading' }, 'Runs'),
      h('div', { class: 'table-wrap' }, runTable),
    ),
    selectedSlot,
    people.sections,
  );
  const root = h('section', { testid: 'view-matching', 'aria-busy': 'true', class: 'view' }, heading, content);
  const busy = (on) => root.setAttribute('aria-busy', on ? 'true' : 'false');

  const showError = (err) =>
    fill(errorSlot, h('p', { testid: 'matching-error', role: 'alert', class: 'error' }, err.message));
  const handle = (err) => {
    if (err instanceof SessionEnded || !ctx.alive()) return true;
    return false;
  };

  function runRow(run) {
    const selected = run.id === state.selectedId;
    return h(
      'tr',
      { 'data-run-id': run.id, class: selected ? 'selected' : null, 'aria-current': selected ? 'true' : null },
      h('td', {}, run.status),
      h('td', {}, run.trigger),
      h('td', {}, time(run.startedAt)),
      h('td', {}, time(run.finishedAt)),
      h('td', { class: 'number' }, figure(run.heatsTotal)),
      h('td', { class: 'number' }, figure(run.heatsAssigned)),
      h('td', { class: 'number' }, figure(run.heatsUnassigned)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            testid: 'run-open',
            'aria-pressed': selected ? 'true' : 'false',
            onclick: () => select(run.id),
          },
          selected ? 'Shown' : 'Show',
        ),
      ),
    );
  }

  const latestSuccessful = () => state.runs.find((r) => r.status === 'success');

  /** Loads the runs; selects `selectId` (default: the newest) and loads its tables. */
  async function loadRuns() {
    const { data } = await get(api);
    state.runs = data;
    state.selectedId = data[0]?.id ?? null;
    fill(runBody, data.map(runRow));
    await Promise.all([showSelected(), people.load(data)]);
  }

  async function select(runId) {
    state.selectedId = runId;
    fill(runBody, state.runs.map(runRow));
    busy(true);
    try {
      await showSelected();
    } catch (err) {
      if (!handle(err)) showError(err);
    } finally {
      if (ctx.alive()) busy(false);
    }
  }

  async function showSelected() {
    const seq = ++state.loads;
    const runId = state.selectedId;
    if (!runId)
      return void fill(selectedSlot, h('p', { class: 'muted' }, 'No run yet. Preview one, or run matching now.'));
    const [run, suggestions] = await Promise.all([get(`${api}/${runId}`), get(`${api}/${runId}/suggestions`)]);
    if (!ctx.alive() || seq !== state.loads) return;
    const startedAt = run.data.startedAt;
    const csv = latestSuccessful()?.id === runId ? csvLink(runId) : null;
    fill(
      selectedSlot,
      h(
        'section',
        { 'aria-labelledby': 'run-heading', class: 'panel' },
        h('h2', { id: 'run-heading' }, 'Run of ', time(startedAt)),
        run.data.error ? h('p', { class: 'error' }, run.data.error) : null,
        csv ? h('p', {}, csv) : null,
        h('h3', {}, 'Suggestions'),
        h(
          'div',
          { class: 'table-wrap' },
          table(
            'suggestions-table',
            null,
            SUGGESTION_COLUMNS,
            suggestions.data.map((s) =>
              h(
                'tr',
                { 'data-id': s.id },
                h('td', {}, heatLabel(s.heat)),
                h('td', {}, username(s.dancer)),
                h('td', {}, username(s.recorder)),
                h('td', {}, s.status),
              ),
            ),
          ),
        ),
        h('h3', {}, 'Unfilled heats'),
        h(
          'div',
          { class: 'table-wrap' },
          table(
            'unfilled-table',
            null,
            UNFILLED_COLUMNS,
            (run.data.unfilledHeats ?? []).map((u) =>
              h('tr', {}, h('td', {}, heatLabel(u.heat)), h('td', {}, username(u.dancer)), h('td', {}, u.reason)),
            ),
          ),
        ),
      ),
    );
  }

  /** The CSV of a run: fetched with the token and saved under the name of its Content-Disposition. */
  function csvLink(runId) {
    const href = `${api}/${runId}/export.csv`;
    const onClick = async (e) => {
      e.preventDefault();
      try {
        const res = await request('GET', href, { raw: true });
        const name = dispositionFileName(res.headers.get('Content-Disposition'), `matching-${ctx.slug}-${runId}.csv`);
        const url = URL.createObjectURL(await res.blob());
        const save = h('a', { href: url, download: name, class: 'visually-hidden' });
        document.body.append(save);
        save.click();
        save.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      } catch (err) {
        if (!handle(err)) showError(err);
      }
    };
    return h('a', { href, testid: 'csv-link', onclick: onClick }, 'Download the plan (CSV)');
  }

  function showPreview(p) {
    const item = (label, testid, value) =>
      h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { testid }, figure(value)));
    const reasons = Object.entries(p.unfilledByReason ?? {});
    fill(
      previewSlot,
      h(
        'section',
        { testid: 'preview-result', 'aria-labelledby': 'preview-heading', class: 'panel' },
        h('h2', { id: 'preview-heading' }, 'Preview (nothing was written)'),
        h(
          'dl',
          { class: 'stats' },
          item('Heats', 'preview-heats-total', p.heatsTotal),
          item('Assigned', 'preview-heats-assigned', p.heatsAssigned),
          item('Unassigned', 'preview-heats-unassigned', p.heatsUnassigned),
          item('Kept', 'preview-kept', p.reuse?.kept),
          item('Added', 'preview-added', p.reuse?.added),
          item('Dropped', 'preview-dropped', p.reuse?.dropped),
        ),
        h('h3', {}, 'Unfilled heats by reason'),
        h(
          'dl',
          { class: 'stats reasons' },
          reasons.map(([reason, count]) => item(reason, `preview-unfilled-${reason}`, count)),
        ),
      ),
    );
  }

  /** Runs a button's request with both buttons disabled; an API error goes to matching-error. */
  async function withButtons(fn) {
    previewButton.disabled = runButton.disabled = true;
    fill(errorSlot);
    try {
      await fn();
    } catch (err) {
      if (!handle(err)) showError(err);
    } finally {
      if (ctx.alive()) {
        previewButton.disabled = runButton.disabled = false;
        busy(false);
      }
    }
  }

  function preview() {
    return withButtons(async () => {
      const { data } = await post(api, { dryRun: true });
      if (ctx.alive()) showPreview(data);
    });
  }

  function runNow() {
    return withButtons(async () => {
      await post(api, {});
      if (!ctx.alive()) return;
      busy(true);
      await loadRuns();
    });
  }

  (async () => {
    try {
      const event = await get(`/api/events/${slugPath(ctx.slug)}`);
      if (!ctx.alive()) return;
      state.eventName = event.data.name;
      heading.textContent = `Matching: ${event.data.name}`;
      document.title = `Matching: ${event.data.name} · WCS admin console`;
      await loadRuns();
    } catch (err) {
      if (handle(err)) return;
      if (err instanceof ApiError && err.status === 404 && !state.eventName) {
        heading.textContent = 'Event not found';
        fill(content, h('p', {}, h('a', { href: '/console/events' }, 'Back to the events')));
      } else showError(err);
    } finally {
      if (ctx.alive()) busy(false);
    }
  })();
  return { root };
}
