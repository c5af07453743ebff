/** Events (`/console/events`): every event, and the form that creates one. */
import { get, post, SessionEnded } from './api.js';
import { errorBox, field, fill, fromLocalInput, h, table, time } from './dom.js';

const COLUMNS = ['Name', 'Location', 'Start', 'End', 'Participants'];

function eventRow(event) {
  return h(
    'tr',
    { 'data-slug': event.slug },
    h('td', {}, h('a', { href: `/console/events/${encodeURIComponent(event.slug)}` }, event.name)),
    h('td', {}, event.location),
    h('td', {}, time(event.startDate)),
    h('td', {}, time(event.endDate)),
    h('td', { class: 'number' }, String(event.participantsCount)),
  );
}

/** The fields of an event form (create and edit share them): inputs with ids `<prefix>-name`, …. */
export function eventFormFields(prefix) {
  const input = (name, type) => h('input', { id: `${prefix}-${name}`, name, type, testid: `${prefix}-${name}` });
  const controls = {
    name: input('name', 'text'),
    location: input('location', 'text'),
    start: input('start', 'datetime-local'),
    end: input('end', 'datetime-local'),
    description: h('textarea', {
      id: `${prefix}-description`,
      name: 'description',
      rows: '3',
      testid: `${prefix}-description`,
    }),
  };
  const fields = [
    field('Name', controls.name),
    field('Location', controls.location),
    field('Start', controls.start),
    field('End', controls.end),
    h(
      'div',
      { class: 'field wide' },
      h('label', { for: controls.description.id }, 'Description'),
      controls.description,
    ),
  ];
  /** The body of POST/PATCH: dates as ISO 8601 UTC, an empty description as null. */
  const body = () => ({
    name: controls.name.value,
    location: controls.location.value,
    startDate: fromLocalInput(controls.start.value),
    endDate: fromLocalInput(controls.end.value),
    description: controls.description.value.trim() ? controls.description.value : null,
  });
  return { controls, fields, body };
}

export function eventsView(ctx) {
  const eventsTable = table('events-table', 'All events', COLUMNS, []);
  const tbody = eventsTable.tBodies[0];
  const listErrorSlot = h('div', { class: 'slot' });
  const form = eventFormFields('event-create');
  const submit = h('button', { type: 'submit', testid: 'event-create-submit' }, 'Create event');
  const errorSlot = h('div', { class: 'slot' });

  const root = h(
    'section',
    { testid: 'view-events', 'aria-busy': 'true', class: 'view' },
    h('h1', {}, 'Events'),
    listErrorSlot,
    h('div', { class: 'table-wrap' }, eventsTable),
    h(
      'section',
      { 'aria-labelledby': 'create-heading', class: 'panel' },
      h('h2', { id: 'create-heading' }, 'Create an event'),
      errorSlot,
      h(
        'form',
        { novalidate: true, class: 'grid-form', onsubmit: create },
        form.fields,
        h('div', { class: 'actions' }, submit),
      ),
    ),
  );

  async function create(e) {
    e.preventDefault();
    submit.disabled = true;
    fill(errorSlot);
    try {
      const { data } = await post('/api/admin/events', form.body());
      ctx.navigate(`/console/events/${encodeURIComponent(data.slug)}`);
    } catch (err) {
      if (err instanceof SessionEnded || !ctx.alive()) return;
      fill(errorSlot, errorBox('event-create-error', err));
      submit.disabled = false;
    }
  }

  (async () => {
    try {
      const { data } = await get('/api/events');
      if (!ctx.alive()) return;
      fill(tbody, data.map(eventRow));
    } catch (err) {
      if (err instanceof SessionEnded || !ctx.alive()) return;
      fill(listErrorSlot, errorBox('events-error', err));
    } finally {
      if (ctx.alive()) root.setAttribute('aria-busy', 'false');
    }
  })();
  return { root };
}
