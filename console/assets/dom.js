/**
 * DOM helpers of the console: elements are built with `h()` (no HTML strings, so no markup
 * injection and nothing the Content-Security-Policy refuses), times as <time>, tables with
 * their header row.
 */

/** The text for a missing value. */
export const NONE = '\u2014';

/**
 * An element: `h('a', { href, testid: 'nav-events' }, 'Events')`. Keys starting with `on` add
 * listeners, `testid` sets data-testid, `value`/`checked` set the property once the children
 * are in (a <select> needs its options first), true adds an empty attribute, false/null nothing.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  const late = {};
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'testid') el.setAttribute('data-testid', value);
    else if (key === 'value' || key === 'checked') late[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  Object.assign(el, late);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A <time> of an ISO string of the API (unchanged in `datetime`), in the browser's time zone; `—` when missing. */
export function time(iso, props = {}) {
  if (!iso) return props.testid ? h('span', props, NONE) : NONE;
  return h('time', { ...props, datetime: iso }, dateTime.format(new Date(iso)));
}

/** The value of a datetime-local input for an ISO string (local time, minutes). */
export function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (browser time zone) as ISO 8601 UTC; undefined when empty. */
export function fromLocalInput(value) {
  return value ? new Date(value).toISOString() : undefined;
}

/**
 * A table with a header row (shown also without rows): `columns` are the header texts,
 * `rows` <tr> elements of the body.
 */
export function table(testid, caption, columns, rows) {
  return h(
    'table',
    { testid },
    caption ? h('caption', {}, caption) : null,
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h('tbody', {}, rows),
  );
}

/** A labelled form field: label, then the control (given its id). */
export function field(labelText, control) {
  return h('div', { class: 'field' }, h('label', { for: control.id }, labelText), control);
}

/** An error box: the API's `error` and every `details[].message` (role=alert, announced when inserted). */
export function errorBox(testid, err) {
  const details = Array.isArray(err.details) ? err.details.map((d) => d.message).filter(Boolean) : [];
  return h(
    'div',
    { testid, role: 'alert', class: 'error' },
    h('p', {}, err.message),
    details.length
      ? h(
          'ul',
          {},
          details.map((m) => h('li', {}, m)),
        )
      : null,
  );
}

/** The label of a heat as in the CSV export: `J&J INT heat 3`, plus ` (<role>)` when set. */
export function heatLabel(heat) {
  if (!heat) return NONE;
  const base = `${heat.competitionType?.abbreviation ?? '?'} ${heat.division?.abbreviation ?? '?'} heat ${heat.heatNumber}`;
  return heat.role ? `${base} (${heat.role})` : base;
}

/**
 * An error box for a refusal that names the rule it broke: the API's `error`, its `code` (e.g.
 * `RECORDER_DANCING`, the first rule a pin broke) and every `details[].message`.
 */
export function refusalBox(testid, err) {
  const box = errorBox(testid, err);
  if (err.code) box.firstChild.append(' ', h('code', { class: 'code' }, err.code));
  return box;
}

/** A one-line status note (role=status, announced), focusable so that focus can move to it after an action. */
export function note(testid, text) {
  return h('p', { testid, role: 'status', class: 'saved', tabindex: '-1' }, text);
}
