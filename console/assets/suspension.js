/**
 * Suspending a user and lifting a suspension (POST / DELETE /api/admin/users/:username/suspend),
 * shared by the report view and the user lookup. A suspension ends the user's sessions at once;
 * `until` (optional, local time, sent as UTC) ends it by itself. The API has no read of a
 * suspension, so the panel shows the state of its own answers.
 */
import { del, post, SessionEnded } from './api.js';
import { errorBox, field, fill, fromLocalInput, h, note, time } from './dom.js';

export function suspensionPanel(ctx, username) {
  const reason = h('textarea', { id: 'suspend-reason', name: 'reason', rows: '2', testid: 'suspend-reason' });
  const until = h('input', { id: 'suspend-until', name: 'until', type: 'datetime-local', testid: 'suspend-until' });
  const suspend = h('button', { type: 'submit', testid: 'suspend-submit' }, `Suspend ${username}`);
  const lift = h('button', { type: 'button', testid: 'unsuspend-submit', onclick: unsuspend }, 'Lift the suspension');
  const slot = h('div', { class: 'slot' });
  const path = `/api/admin/users/${encodeURIComponent(username)}/suspend`;

  const done = (content) => {
    fill(slot, content);
    slot.firstChild.setAttribute('tabindex', '-1');
    slot.firstChild.focus();
  };

  async function act(fn) {
    suspend.disabled = lift.disabled = true;
    fill(slot);
    try {
      await fn();
    } catch (err) {
      if (!(err instanceof SessionEnded) && ctx.alive()) done(errorBox('suspend-error', err));
    } finally {
      if (ctx.alive()) suspend.disabled = lift.disabled = false;
    }
  }

  function onSuspend(e) {
    e.preventDefault();
    return act(async () => {
      const { data } = await post(path, { reason: reason.value, until: fromLocalInput(until.value) ?? null });
      if (!ctx.alive()) return;
      const result = note('suspend-result', `${data.user.username} is suspended `);
      result.append(
        data.until ? h('span', {}, 'until ', time(data.until)) : 'until lifted',
        `. Reason: ${data.reason}`,
      );
      done(result);
    });
  }

  function unsuspend() {
    return act(async () => {
      const { data } = await del(path);
      if (ctx.alive()) done(note('suspend-result', `${data.user.username} is not suspended.`));
    });
  }

  return h(
    'section',
    { 'aria-labelledby': 'suspend-heading', class: 'panel', testid: 'suspension' },
    h('h2', { id: 'suspend-heading' }, 'Suspension: ', h('span', { testid: 'suspend-user' }, username)),
    h(
      'p',
      { class: 'muted' },
      'A suspended user cannot sign in and his/her sessions end at once; matching leaves him/her out. ' +
        'Without an end the suspension lasts until lifted.',
    ),
    slot,
    h(
      'form',
      { novalidate: true, class: 'grid-form', onsubmit: onSuspend },
      h('div', { class: 'field wide' }, h('label', { for: reason.id }, 'Reason (shown to nobody but admins)'), reason),
      field('Until (optional)', until),
      h('div', { class: 'actions' }, suspend, lift),
    ),
  );
}
