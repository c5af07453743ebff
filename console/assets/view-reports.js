/**
 * Reports (`/console/reports`): the queue of GET /api/admin/reports (newest first, 50 a page,
 * filtered by status; open ones at load), one report opened with its target, resolved or
 * dismissed with a note (PATCH /api/admin/reports/:id), and the reported person suspended
 * (suspension.js).
 */
import { get, patch, query, SessionEnded } from './api.js';
import { errorBox, field, fill, h, note, table, time, NONE } from './dom.js';
import { suspensionPanel } from './suspension.js';

const COLUMNS = ['Reported', 'Reporter', 'Target', 'Reason', 'Status', 'Details'];

/** One line naming the target: a user, a message (author, room, content) or a match (its members). */
function targetText(report) {
  const t = report.target;
  if (!t) return `${report.targetType} ${report.targetId}`;
  if (report.targetType === 'user') return `User ${t.username}`;
  if (report.targetType === 'message') {
    const room = t.room?.type === 'private' ? 'a private chat' : 'the event chat';
    const where = t.room?.event ? ` of ${t.room.event.name}` : '';
    return `Message by ${t.author?.username ?? NONE} in ${room}${where}${t.deleted ? ' (deleted)' : ''}`;
  }
  const users = (t.users ?? []).map((u) => u.username).join(' and ');
  return `Match of ${users} at ${t.event?.name ?? NONE} (${t.status})`;
}

/** Who a suspension from this report would concern: the user, the message's author, the other member of the match. */
function personOf(report) {
  const t = report.target;
  if (!t) return null;
  if (report.targetType === 'user') return t.username;
  if (report.targetType === 'message') return t.author?.id ? t.author.username : null;
  return (t.users ?? []).find((u) => u.id !== report.reporter?.id)?.username ?? null;
}

export function reportsView(ctx) {
  const state = { page: 1, totalPages: 1, items: [], openId: null };
  const status = h(
    'select',
    { id: 'reports-status', name: 'status', testid: 'reports-status' },
    h('option', { value: 'open' }, 'open'),
    h('option', { value: 'resolved' }, 'resolved'),
    h('option', { value: 'dismissed' }, 'dismissed'),
    h('option', { value: '' }, 'any'),
  );
  const apply = h('button', { type: 'submit', testid: 'reports-apply' }, 'Show');
  const prev = h('button', { type: 'button', testid: 'reports-prev', onclick: () => load(state.page - 1) }, 'Previous');
  const next = h('button', { type: 'button', testid: 'reports-next', onclick: () => load(state.page + 1) }, 'Next');
  const pageText = h('span', { testid: 'reports-page', 'aria-live': 'polite' }, 'Page 1 of 1');
  const reportsTable = table('reports-table', 'Reports, newest first', COLUMNS, []);
  const tbody = reportsTable.tBodies[0];
  const errorSlot = h('div', { class: 'slot' });
  const detailSlot = h('div');
  const root = h(
    'section',
    { testid: 'view-reports', 'aria-busy': 'true', class: 'view' },
    h('h1', {}, 'Reports'),
    h(
      'form',
      {
        novalidate: true,
        class: 'filters',
        onsubmit: (e) => {
          e.preventDefault();
          load(1);
        },
      },
      field('Status', status),
      h('div', { class: 'actions' }, apply),
    ),
    h('div', { class: 'toolbar' }, h('div', { class: 'pager' }, prev, pageText, next)),
    errorSlot,
    h('div', { class: 'table-wrap' }, reportsTable),
    detailSlot,
  );
  const busy = (on) => root.setAttribute('aria-busy', on ? 'true' : 'false');

  function row(report) {
    const opened = report.id === state.openId;
    return h(
      'tr',
      { 'data-id': report.id, class: opened ? 'selected' : null, 'aria-current': opened ? 'true' : null },
      h('td', {}, time(report.createdAt)),
      h('td', {}, report.reporter?.username ?? NONE),
      h('td', {}, targetText(report)),
      h('td', {}, report.reason),
      h('td', {}, report.status),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            testid: 'report-open',
            'aria-expanded': opened ? 'true' : 'false',
            'aria-controls': 'report-detail',
            onclick: () => open(report.id),
          },
          'Open',
        ),
      ),
    );
  }

  const showRows = () => fill(tbody, state.items.map(row));

  async function load(page) {
    busy(true);
    fill(errorSlot);
    try {
      const answer = await get(`/api/admin/reports${query({ status: status.value, page: page > 1 ? page : '' })}`);
      if (!ctx.alive()) return;
      state.items = answer.data;
      state.page = answer.pagination.page;
      state.totalPages = Math.max(1, answer.pagination.totalPages);
      pageText.textContent = `Page ${state.page} of ${state.totalPages}`;
      prev.disabled = state.page <= 1;
      next.disabled = state.page >= state.totalPages;
      showRows();
    } catch (err) {
      if (!(err instanceof SessionEnded) && ctx.alive()) fill(errorSlot, errorBox('reports-error', err));
    } finally {
      if (ctx.alive()) busy(false);
    }
  }

  function open(id) {
    state.openId = id;
    showRows();
    const report = state.items.find((r) => r.id === id);
    fill(detailSlot, detail(report));
    detailSlot.querySelector('h2')?.focus();
  }

  function detail(report, saved = null) {
    const t = report.target;
    const item = (label, value) => [h('dt', {}, label), h('dd', {}, value)];
    const person = personOf(report);
    const noteInput = h('textarea', { id: 'report-note', name: 'note', rows: '2', testid: 'report-note' });
    const slot = h('div', { class: 'slot' }, saved ? note('report-result', saved) : null);
    const decide = (newStatus) => async () => {
      fill(slot);
      try {
        const { data } = await patch(`/api/admin/reports/${report.id}`, { status: newStatus, note: noteInput.value });
        if (!ctx.alive()) return;
        state.items = state.items.map((r) => (r.id === data.id ? data : r));
        showRows();
        fill(detailSlot, detail(data, `Report ${data.id} ${data.status}.`));
        detailSlot.querySelector('[data-testid="report-result"]')?.focus();
      } catch (err) {
        if (err instanceof SessionEnded || !ctx.alive()) return;
        fill(slot, errorBox('report-error', err));
        slot.firstChild.setAttribute('tabindex', '-1');
        slot.firstChild.focus();
      }
    };
    const decision =
      report.status === 'open'
        ? h(
            'form',
            { novalidate: true, class: 'grid-form', onsubmit: (e) => e.preventDefault() },
            h('div', { class: 'field wide' }, h('label', { for: noteInput.id }, 'Note (optional)'), noteInput),
            h(
              'div',
              { class: 'actions' },
              h(
                'button',
                { type: 'button', class: 'primary', testid: 'report-resolve', onclick: decide('resolved') },
                'Resolve',
              ),
              h('button', { type: 'button', testid: 'report-dismiss', onclick: decide('dismissed') }, 'Dismiss'),
            ),
          )
        : null;
    return h(
      'div',
      {},
      h(
        'section',
        { id: 'report-detail', testid: 'report-detail', 'aria-labelledby': 'report-heading', class: 'panel' },
        h('h2', { id: 'report-heading', tabindex: '-1' }, `Report ${report.id}`),
        h(
          'dl',
          { class: 'facts' },
          item('Status', h('span', { testid: 'report-status' }, report.status)),
          item('Reported', time(report.createdAt)),
          item('Reporter', report.reporter?.username ?? NONE),
          item('Reason', report.reason),
          item('Details', report.details || NONE),
          item('Target', targetText(report)),
          report.targetType === 'message' && t ? item('Message', h('blockquote', {}, t.content)) : null,
          report.targetType === 'user' && t
            ? item('Profile', h('a', { href: `/console/users/${encodeURIComponent(t.username)}` }, t.username))
            : null,
          item('Note', report.note || NONE),
          item('Closed', report.resolvedAt ? [time(report.resolvedAt), ` by ${report.resolvedBy?.username}`] : NONE),
        ),
        slot,
        decision,
      ),
      person ? suspensionPanel(ctx, person) : null,
    );
  }

  document.title = 'Reports · WCS admin console';
  load(1);
  return { root };
}
