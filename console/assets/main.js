/**
 * The admin console (docs/console.md): boot, session, the path → view router and the chrome.
 * Plain ES modules served by the service itself (no build step, nothing from another host).
 * Every path below /console answers this page; the History API picks the view, and links
 * inside the console are real <a href> that are opened here without a reload.
 */
import { get, onSessionEnd, request, session, SessionEnded } from './api.js';
import { field, fill, h } from './dom.js';
import { activityView } from './view-activity.js';
import { eventView } from './view-event.js';
import { eventsView } from './view-events.js';
import { matchingView } from './view-matching.js';
import { reportsView } from './view-reports.js';
import { usersView } from './view-users.js';
import { venueView } from './view-venue.js';

const app = document.getElementById('app');

/** 'login' | 'admin-required' | 'signed-in' */
let mode = 'login';
/** The signed-in admin (GET /api/users/me or the login's user). */
let me = null;
/** The message shown on the sign-in view (a 401 of the API). */
let loginMessage = null;
/** The view shown: { root, cleanup? }. */
let current = null;
let generation = 0;

/** The view of a path below /console, with its parameters. */
export function routeOf(pathname) {
  const parts = pathname.split('/').filter(Boolean);
  if (parts[0] !== 'console') return { name: 'not-found' };
  let rest;
  try {
    rest = parts.slice(1).map(decodeURIComponent);
  } catch {
    return { name: 'not-found' };
  }
  if (rest.length === 0) return { name: 'activity' };
  if (rest[0] === 'reports' && rest.length === 1) return { name: 'reports' };
  if (rest[0] === 'users' && rest.length <= 2) return { name: 'users', username: rest[1] };
  if (rest[0] !== 'events') return { name: 'not-found' };
  if (rest.length === 1) return { name: 'events' };
  if (rest.length === 2) return { name: 'event', slug: rest[1] };
  if (rest.length === 3 && rest[2] === 'matching') return { name: 'matching', slug: rest[1] };
  if (rest.length === 3 && rest[2] === 'venue') return { name: 'venue', slug: rest[1] };
  return { name: 'not-found' };
}

const VIEWS = {
  activity: activityView,
  events: eventsView,
  event: eventView,
  matching: matchingView,
  venue: venueView,
  reports: reportsView,
  users: usersView,
  'not-found': notFoundView,
};

/** Opens a console path without a reload. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
  document.getElementById('main')?.focus();
}

function render() {
  current?.cleanup?.();
  current = null;
  const gen = ++generation;
  if (mode === 'login') return show(null, loginView(loginMessage));
  if (mode === 'admin-required') return show(null, adminRequiredView());
  const route = routeOf(location.pathname);
  const ctx = { ...route, me, navigate, alive: () => gen === generation };
  current = VIEWS[route.name](ctx);
  show(route.name === 'venue' ? null : chrome(route.name), current);
}

function show(header, view) {
  fill(app, header, h('main', { id: 'main', tabindex: '-1' }, view.root));
}

/** The navigation of a signed-in admin (every view but the venue screen). */
function chrome(routeName) {
  const current = (name) => (routeName === name ? 'page' : null);
  return h(
    'header',
    { class: 'chrome' },
    h('p', { class: 'brand' }, 'WCS admin console'),
    h(
      'nav',
      { 'aria-label': 'Console' },
      h(
        'ul',
        {},
        h(
          'li',
          {},
          h('a', { href: '/console', testid: 'nav-activity', 'aria-current': current('activity') }, 'Activity log'),
        ),
        h(
          'li',
          {},
          h('a', { href: '/console/events', testid: 'nav-events', 'aria-current': current('events') }, 'Events'),
        ),
        h(
          'li',
          {},
          h('a', { href: '/console/reports', testid: 'nav-reports', 'aria-current': current('reports') }, 'Reports'),
        ),
        h('li', {}, h('a', { href: '/console/users', testid: 'nav-users', 'aria-current': current('users') }, 'Users')),
      ),
    ),
    h(
      'div',
      { class: 'account' },
      h('span', { class: 'muted' }, 'Signed in as'),
      ' ',
      h('span', { testid: 'signed-in-user', class: 'user' }, me.username),
      ' ',
      h('button', { type: 'button', testid: 'sign-out', onclick: signOut }, 'Sign out'),
    ),
  );
}

/** Ends the session here: token dropped, Live socket closed (the view's cleanup), then `next` shown. */
function endSession(next, message = null) {
  session.drop();
  me = null;
  mode = next;
  loginMessage = message;
  render();
}

function signOut() {
  history.pushState(null, '', '/console');
  endSession('login');
}

function loginView(message) {
  const email = h('input', {
    id: 'login-email',
    type: 'email',
    name: 'email',
    autocomplete: 'username',
    testid: 'login-email',
  });
  const password = h('input', {
    id: 'login-password',
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    testid: 'login-password',
  });
  const submit = h('button', { type: 'submit', testid: 'login-submit' }, 'Sign in');
  const errorSlot = h('div', { class: 'slot' });
  const showError = (text) => fill(errorSlot, h('p', { testid: 'login-error', role: 'alert', class: 'error' }, text));
  if (message) showError(message);

  const onSubmit = async (e) => {
    e.preventDefault();
    submit.disabled = true;
    fill(errorSlot);
    try {
      const { data } = await request('POST', '/api/auth/login', {
        body: { email: email.value, password: password.value },
        auth: false,
      });
      if (data.user.isAdmin) {
        session.keep(data.token);
        me = data.user;
        mode = 'signed-in';
      } else {
        mode = 'admin-required';
      }
      loginMessage = null;
      render();
    } catch (err) {
      showError(err.message);
      submit.disabled = false;
    }
  };

  const root = h(
    'section',
    { testid: 'view-login', 'aria-busy': 'false', class: 'view narrow' },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'The admin console of the WCS partner service. Sign in with an admin account.'),
    errorSlot,
    h(
      'form',
      { novalidate: true, onsubmit: onSubmit, class: 'stack' },
      field('E-mail', email),
      field('Password', password),
      h('div', { class: 'actions' }, submit),
    ),
  );
  return { root };
}

function adminRequiredView() {
  const root = h(
    'section',
    { testid: 'view-admin-required', 'aria-busy': 'false', class: 'view narrow' },
    h('h1', {}, 'Admin access required'),
    h('button', { type: 'button', testid: 'sign-out', onclick: signOut }, 'Sign out'),
  );
  return { root };
}

function notFoundView() {
  const root = h(
    'section',
    { testid: 'view-not-found', 'aria-busy': 'false', class: 'view' },
    h('h1', {}, 'Page not found'),
    h('p', {}, 'The console has no page at this address. ', h('a', { href: '/console' }, 'Open the activity log'), '.'),
  );
  return { root };
}

/** Links to console paths open here; other links (the API, downloads, new tabs) keep their default. */
function openConsoleLinks(e) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
  if (!link || link.hasAttribute('download') || link.target) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !(url.pathname === '/console' || url.pathname.startsWith('/console/'))) return;
  e.preventDefault();
  navigate(url.pathname);
}

async function boot() {
  onSessionEnd({
    unauthorized: (message) => endSession('login', message),
    adminRequired: () => endSession('admin-required'),
  });
  document.addEventListener('click', openConsoleLinks);
  window.addEventListener('popstate', () => render());

  if (!session.token) return render();
  fill(app, h('p', { class: 'loading', role: 'status' }, 'Loading…'));
  try {
    const { data } = await get('/api/users/me');
    if (data.isAdmin) {
      me = data;
      mode = 'signed-in';
    } else {
      session.drop();
      mode = 'admin-required';
    }
  } catch (err) {
    if (err instanceof SessionEnded) return;
    // the service could not be reached or failed: the sign-in view with the reason
    mode = 'login';
    loginMessage = err.message;
  }
  render();
}

boot();
