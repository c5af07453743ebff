/**
 * The console's calls to the service's API (same origin, relative paths). The token is kept
 * in sessionStorage under `consoleToken` (per tab; never localStorage or a cookie). With CSRF
 * protection on, the token of GET /api/csrf-token is fetched once, before the first
 * POST/PUT/PATCH/DELETE, sent as X-CSRF-Token, and renewed once after a 403 CSRF_INVALID.
 *
 * An authenticated call answered 401 ends the session (the `unauthorized` hook shows the sign-in
 * with the API's message); a 403 ADMIN_REQUIRED does the same with the admin-required view.
 * Both throw SessionEnded, which views ignore.
 */

const TOKEN_KEY = 'consoleToken';

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error || `Request failed (${status})`);
    this.status = status;
    this.code = body?.code;
    this.details = body?.details;
  }
}

/** The session ended while a view was loading: the sign-in (or admin-required) view is already shown. */
export class SessionEnded extends Error {}

const hooks = { unauthorized: () => {}, adminRequired: () => {} };

/** Sets what happens when the API ends the session. */
export function onSessionEnd(handlers) {
  Object.assign(hooks, handlers);
}

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  keep(token) {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  drop() {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

let csrfToken = null;
const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

async function freshCsrfToken() {
  const res = await fetch('/api/csrf-token', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  const body = await res.json().catch(() => null);
  csrfToken = body?.data?.csrfToken ?? null;
  return csrfToken;
}

async function send(method, path, { body, auth }) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const token = session.token;
  if (auth && token) headers.Authorization = `Bearer ${token}`;
  if (MUTATIONS.has(method)) headers['X-CSRF-Token'] = csrfToken ?? (await freshCsrfToken()) ?? '';
  return fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
}

/**
 * One API call. Resolves with the response (`raw`) or its JSON body; rejects with ApiError
 * (the envelope's error, code and details) or SessionEnded.
 */
export async function request(method, path, { body, auth = true, raw = false } = {}) {
  let res = await send(method, path, { body, auth });
  if (res.status === 403 && MUTATIONS.has(method)) {
    const peek = await res
      .clone()
      .json()
      .catch(() => null);
    if (peek?.code === 'CSRF_INVALID') {
      await freshCsrfToken();
      res = await send(method, path, { body, auth });
    }
  }
  if (!res.ok) {
    const errorBody = await res.json().catch(() => null);
    const err = new ApiError(res.status, errorBody);
    if (auth && res.status === 401) {
      hooks.unauthorized(err.message);
      throw new SessionEnded(err.message);
    }
    if (auth && res.status === 403 && err.code === 'ADMIN_REQUIRED') {
      hooks.adminRequired();
      throw new SessionEnded(err.message);
    }
    throw err;
  }
  return raw ? res : res.json();
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, { body });
export const patch = (path, body) => request('PATCH', path, { body });
export const put = (path, body) => request('PUT', path, { body });
export const del = (path) => request('DELETE', path);

/** A query string of the given parameters, empty ones left out (`?a=1&b=x` or ''). */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The file name of a Content-Disposition header (filename*= preferred), or the fallback. */
export function dispositionFileName(header, fallback) {
  if (!header) return fallback;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through to filename= */
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(header);
  return plain ? plain[1].trim() : fallback;
}

export const slugPath = (slug) => encodeURIComponent(slug);
