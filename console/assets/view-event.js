/** Event (`/console/events/:slug`): its facts, links to the venue screen and matching, and the edit form. */
import { ApiError, get, patch, SessionEnded, slugPath } from './api.js';
import { errorBox, fill, h, time, toLocalInput } from './dom.js';
import { eventFormFields } from './view-events.js';

/** The slots of `scheduleConfig` in `order`, division ids as names (GET /api/divisions). */
function slotsOf(event, divisionNames) {
  const slots = Array.isArray(event.scheduleConfig?.slots) ? [...event.scheduleConfig.slots] : [];
  if (!slots.length) return h('p', { testid: 'event-slots' }, 'Every division is its own slot');
  slots.sort((a, b) => a.order - b.order);
  const names = (ids) => (ids ?? []).map((id) => divisionNames.get(id) ?? `Division ${id}`).join(', ');
  return h(
    'ul',
    { testid: 'event-slots', class: 'slots' },
    slots.map((s) => h('li', {}, `Slot ${s.order}: ${names(s.divisionIds)}`)),
  );
}

function facts(event, divisionNames) {
  const item = (label, value) => [h('dt', {}, label), h('dd', {}, value)];
  return h(
    'dl',
    { class: 'facts' },
    item('Location', h('span', { testid: 'event-location' }, event.location)),
    item('Start', time(event.startDate, { testid: 'event-start' })),
    item('End', time(event.endDate, { testid: 'event-end' })),
    item('Participants', h('span', { testid: 'event-participants' }, String(event.participantsCount ?? 0))),
    item(
      'Registration deadline',
      event.registrationDeadline
        ? time(event.registrationDeadline, { testid: 'event-deadline' })
        : h('span', { testid: 'event-deadline' }, 'none'),
    ),
    item('Heat slots', slotsOf(event, divisionNames)),
  );
}

export function eventView(ctx) {
  const base = `/console/events/${encodeURIComponent(ctx.slug)}`;
  const heading = h('h1', {}, 'Event');
  const body = h('div');
  const root = h('section', { testid: 'view-event', 'aria-busy': 'true', class: 'view' }, heading, body);
  let divisionNames = new Map();

  function showEvent(event, note = null) {
    heading.textContent = event.name;
    document.title = `${event.name} · WCS admin console`;
    fill(
      body,
      h(
        'ul',
        { class: 'links' },
        h('li', {}, h('a', { href: `${base}/venue`, testid: 'venue-link' }, 'Venue screen (check-in QR code)')),
        h('li', {}, h('a', { href: `${base}/matching`, testid: 'matching-link' }, 'Matching')),
      ),
      facts(event, divisionNames),
      editForm(event, note),
    );
  }

  function editForm(event, note) {
    const form = eventFormFields('event-edit');
    form.controls.name.value = event.name;
    form.controls.location.value = event.location;
    form.controls.start.value = toLocalInput(event.startDate);
    form.controls.end.value = toLocalInput(event.endDate);
    form.controls.description.value = event.description ?? '';
    const submit = h('button', { type: 'submit', testid: 'event-edit-submit' }, 'Save changes');
    const errorSlot = h('div', { class: 'slot' }, note ? h('p', { role: 'status', class: 'saved' }, note) : null);
    const onSubmit = async (e) => {
      e.preventDefault();
      submit.disabled = true;
      fill(errorSlot);
      try {
        const { data } = await patch(`/api/admin/events/${slugPath(ctx.slug)}`, form.body());
        if (ctx.alive()) showEvent(data, 'Changes saved.');
      } catch (err) {
        if (err instanceof SessionEnded || !ctx.alive()) return;
        fill(errorSlot, errorBox('event-edit-error', err));
        submit.disabled = false;
      }
    };
    return h(
      'section',
      { 'aria-labelledby': 'edit-heading', class: 'panel' },
      h('h2', { id: 'edit-heading' }, 'Edit event'),
      errorSlot,
      h(
        'form',
        { novalidate: true, class: 'grid-form', onsubmit: onSubmit },
        form.fields,
        h('div', { class: 'actions' }, submit),
      ),
    );
  }

  (async () => {
    try {
      const [event, divisions] = await Promise.all([get(`/api/events/${slugPath(ctx.slug)}`), get('/api/divisions')]);
      if (!ctx.alive()) return;
      divisionNames = new Map(divisions.data.map((d) => [d.id, d.name]));
      showEvent(event.data);
    } catch (err) {
      if (err instanceof SessionEnded || !ctx.alive()) return;
      if (err instanceof ApiError && err.status === 404) {
        heading.textContent = 'Event not found';
        fill(body, h('p', {}, h('a', { href: '/console/events' }, 'Back to the events')));
      } else fill(body, errorBox('event-error', err));
    } finally {
      if (ctx.alive()) root.setAttribute('aria-busy', 'false');
    }
  })();
  return { root };
}
