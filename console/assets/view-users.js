/**
 * Users (`/console/users`, `/console/users/:username`): look a user up by username
 * (GET /api/users/:username, the public profile) and suspend him/her or lift the suspension.
 */
import { ApiError, get, SessionEnded } from './api.js';
import { errorBox, field, fill, h, NONE } from './dom.js';
import { suspensionPanel } from './suspension.js';

export function usersView(ctx) {
  const lookup = h('input', {
    id: 'user-lookup',
    name: 'username',
    type: 'text',
    autocomplete: 'off',
    testid: 'user-lookup',
    value: ctx.username ?? '',
  });
  const submit = h('button', { type: 'submit', testid: 'user-lookup-submit' }, 'Look up');
  const result = h('div');
  const root = h(
    'section',
    { testid: 'view-users', 'aria-busy': ctx.username ? 'true' : 'false', class: 'view' },
    h('h1', {}, 'Users'),
    h(
      'form',
      { novalidate: true, class: 'filters', role: 'search', onsubmit: onLookup },
      field('Username', lookup),
      h('div', { class: 'actions' }, submit),
    ),
    result,
  );

  async function show(username) {
    root.setAttribute('aria-busy', 'true');
    fill(result);
    try {
      const { data } = await get(`/api/users/${encodeURIComponent(username)}`);
      if (!ctx.alive()) return;
      const name = [data.firstName, data.lastName].filter(Boolean).join(' ') || NONE;
      const place = [data.city, data.country].filter(Boolean).join(', ') || NONE;
      fill(
        result,
        h(
          'section',
          { testid: 'user-profile', 'aria-labelledby': 'profile-heading', class: 'panel' },
          h('h2', { id: 'profile-heading' }, data.username),
          h('dl', { class: 'facts' }, h('dt', {}, 'Name'), h('dd', {}, name), h('dt', {}, 'Place'), h('dd', {}, place)),
        ),
        suspensionPanel(ctx, data.username),
      );
    } catch (err) {
      if (err instanceof SessionEnded || !ctx.alive()) return;
      fill(result, errorBox('user-lookup-error', err instanceof ApiError ? err : { message: String(err) }));
    } finally {
      if (ctx.alive()) root.setAttribute('aria-busy', 'false');
    }
  }

  function onLookup(e) {
    e.preventDefault();
    const username = lookup.value.trim();
    if (!username) return;
    history.replaceState(null, '', `/console/users/${encodeURIComponent(username)}`);
    return show(username);
  }

  if (ctx.username) show(ctx.username);
  document.title = 'Users · WCS admin console';
  return { root };
}
