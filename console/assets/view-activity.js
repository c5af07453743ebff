/**
 * Activity log (`/console`): the newest entries with filters and paging, the statistics, and
 * Live (the `admin_activity_logs` socket room): new entries that match the filters in force
 * become the first row without reloading the list.
 */
import { get, query, session, SessionEnded } from './api.js';
import { errorBox, field, fill, fromLocalInput, h, NONE, table, time } from './dom.js';
import { io } from './socket.io.esm.min.js';

const CATEGORIES = ['auth', 'event', 'match', 'admin', 'chat'];
const COLUMNS = ['Time', 'Category', 'Action', 'User', 'Outcome', 'IP'];
const PAGE_SIZE = 50;

function entryRow(entry) {
  return h(
    'tr',
    { 'data-id': entry.id },
    h('td', {}, time(entry.createdAt)),
    h('td', {}, entry.category),
    h('td', {}, entry.action),
    h('td', {}, entry.username || NONE),
    h('td', {}, entry.success ? 'success' : 'failure'),
    h('td', {}, entry.ip || NONE),
  );
}

/** The API's filter rules: category and action exact, username ignoring case, success, from ≤ createdAt ≤ to. */
export function matchesFilters(entry, f) {
  if (f.category && entry.category !== f.category) return false;
  if (f.action && entry.action !== f.action) return false;
  if (f.username && (entry.username ?? '').toLowerCase() !== f.username.toLowerCase()) return false;
  if (f.success && String(entry.success) !== f.success) return false;
  const at = Date.parse(entry.createdAt);
  if (f.from && at < Date.parse(f.from)) return false;
  if (f.to && at > Date.parse(f.to)) return false;
  return true;
}

const select = (id, label, options) =>
  field(
    label,
    h(
      'select',
      { id, name: id, testid: id },
      options.map(([value, text]) => h('option', { value }, text)),
    ),
  );

export function activityView(ctx) {
  const state = { filters: {}, page: 1, totalPages: 1, socket: null, loads: 0 };

  const categoryField = select('filter-category', 'Category', [['', 'Any'], ...CATEGORIES.map((c) => [c, c])]);
  const actionField = select('filter-action', 'Action', [['', 'Any']]);
  const usernameField = field(
    'User',
    h('input', {
      id: 'filter-username',
      name: 'username',
      type: 'text',
      autocomplete: 'off',
      testid: 'filter-username',
    }),
  );
  const successField = select('filter-success', 'Outcome', [
    ['', 'Any'],
    ['true', 'success'],
    ['false', 'failure'],
  ]);
  const fromField = field(
    'From',
    h('input', { id: 'filter-from', name: 'from', type: 'datetime-local', testid: 'filter-from' }),
  );
  const toField = field('To', h('input', { id: 'filter-to', name: 'to', type: 'datetime-local', testid: 'filter-to' }));
  const control = (f) => f.querySelector('input, select');
  const controls = [categoryField, actionField, usernameField, successField, fromField, toField].map(control);
  const [category, action, username, success, from, to] = controls;

  const stats = {};
  const stat = (key, label) =>
    h(
      'div',
      { class: key.startsWith('category-') ? 'stat category' : 'stat' },
      h('dt', {}, label),
      (stats[key] = h('dd', { testid: `stat-${key}` }, NONE)),
    );
  const statsList = h(
    'dl',
    { class: 'stats' },
    stat('total', 'Total'),
    stat('last24h', 'Last 24 hours'),
    stat('failures', 'Failures'),
    CATEGORIES.map((c) => stat(`category-${c}`, c)),
  );

  const logTable = table('activity-table', 'Activity log entries, newest first', COLUMNS, []);
  const tbody = logTable.tBodies[0];

  const prev = h(
    'button',
    { type: 'button', testid: 'activity-prev', disabled: true, onclick: () => load(state.page - 1) },
    'Previous page',
  );
  const next = h(
    'button',
    { type: 'button', testid: 'activity-next', disabled: true, onclick: () => load(state.page + 1) },
    'Next page',
  );
  const pageText = h('span', { testid: 'activity-page', 'aria-live': 'polite' }, 'Page 1 of 1');

  const toggle = h('input', {
    id: 'live-toggle',
    type: 'checkbox',
    testid: 'live-toggle',
    onchange: () => (toggle.checked ? startLive() : stopLive()),
  });
  const liveStatus = h('span', { testid: 'live-status', role: 'status' }, 'off');
  const errorSlot = h('div', { class: 'slot' });

  const root = h(
    'section',
    { testid: 'view-activity', 'aria-busy': 'true', class: 'view' },
    h('h1', {}, 'Activity log'),
    h(
      'section',
      { 'aria-labelledby': 'stats-heading' },
      h('h2', { id: 'stats-heading', class: 'visually-hidden' }, 'Statistics'),
      statsList,
    ),
    h(
      'form',
      {
        class: 'filters',
        role: 'search',
        'aria-label': 'Filter the activity log',
        onsubmit: (e) => (e.preventDefault(), apply()),
      },
      categoryField,
      actionField,
      usernameField,
      successField,
      fromField,
      toField,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', testid: 'filter-apply' }, 'Apply'),
        h('button', { type: 'button', testid: 'filter-reset', onclick: reset }, 'Reset'),
      ),
    ),
    h(
      'div',
      { class: 'toolbar' },
      h(
        'div',
        { class: 'live' },
        toggle,
        h('label', { for: 'live-toggle' }, 'Live'),
        h('span', { class: 'muted' }, 'Status:'),
        liveStatus,
      ),
      h('div', { class: 'pager' }, prev, pageText, next),
    ),
    errorSlot,
    h('div', { class: 'table-wrap' }, logTable),
  );

  const busy = (on) => root.setAttribute('aria-busy', on ? 'true' : 'false');

  function showStats(data) {
    stats.total.textContent = String(data.total);
    stats.last24h.textContent = String(data.last24h);
    stats.failures.textContent = String(data.failures);
    for (const c of CATEGORIES) stats[`category-${c}`].textContent = String(data.byCategory?.[c] ?? 0);
  }

  /** A page of the list with the filters in force, and the statistics. */
  async function load(page, extra = []) {
    const seq = ++state.loads;
    busy(true);
    try {
      const [list, statsAnswer] = await Promise.all([
        get(`/api/admin/activity-logs${query({ ...state.filters, page: page > 1 ? page : undefined })}`),
        get('/api/admin/activity-logs/stats'),
        ...extra,
      ]);
      if (!ctx.alive() || seq !== state.loads) return;
      state.page = page;
      state.totalPages = Math.max(1, list.pagination?.totalPages ?? 1);
      fill(tbody, list.data.map(entryRow));
      showStats(statsAnswer.data);
      pageText.textContent = `Page ${state.page} of ${state.totalPages}`;
      prev.disabled = state.page <= 1;
      next.disabled = state.page >= state.totalPages;
      fill(errorSlot);
    } catch (err) {
      if (err instanceof SessionEnded || !ctx.alive()) return;
      fill(errorSlot, errorBox('activity-error', err));
    } finally {
      if (ctx.alive() && seq === state.loads) busy(false);
    }
  }

  async function loadActions() {
    const { data } = await get('/api/admin/activity-logs/actions');
    if (!ctx.alive()) return;
    action.append(...data.map((name) => h('option', { value: name }, name)));
  }

  function apply() {
    state.filters = {
      category: category.value || undefined,
      action: action.value || undefined,
      username: username.value.trim() || undefined,
      success: success.value || undefined,
      from: fromLocalInput(from.value),
      to: fromLocalInput(to.value),
    };
    load(1);
  }

  function reset() {
    for (const c of controls) c.value = '';
    state.filters = {};
    load(1);
  }

  function setLive(text) {
    liveStatus.textContent = text;
  }

  function startLive() {
    setLive('connecting');
    const socket = io({ auth: { token: session.token } });
    state.socket = socket;
    socket.on('connect', () => {
      // (again after a reconnection: the room is joined per connection)
      socket.emit('join_admin_activity_logs', (ack) => {
        if (state.socket !== socket) return;
        if (!ack?.success) return setLive('error');
        setLive('on');
        if (state.page !== 1) load(1);
      });
    });
    socket.on('connect_error', () => state.socket === socket && setLive('error'));
    socket.on('disconnect', () => state.socket === socket && setLive(socket.active ? 'connecting' : 'error'));
    socket.on('activity_log_entry', (entry) => state.socket === socket && addLiveEntry(entry));
  }

  function stopLive() {
    const socket = state.socket;
    state.socket = null;
    if (socket) {
      if (socket.connected) socket.emit('leave_admin_activity_logs');
      socket.disconnect();
    }
    setLive('off');
  }

  function addLiveEntry(entry) {
    if (state.page !== 1 || !matchesFilters(entry, state.filters)) return;
    if ([...tbody.rows].some((r) => r.dataset.id === String(entry.id))) return;
    tbody.prepend(entryRow(entry));
    while (tbody.rows.length > PAGE_SIZE) tbody.lastElementChild.remove();
  }

  load(1, [loadActions()]);
  return { root, cleanup: () => state.socket && stopLive() };
}
