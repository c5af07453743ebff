/**
 * The people side of the matching view (docs/console.md, "Matching"): the event's matching
 * settings, its heats with their current recorder and the suggestion's "why", pins (an admin
 * assigns a recorder to a heat), removals, and the no-show (absent) marks of participants.
 *
 * What the API lets the console read: the suggestions of each run (GET .../matching-runs/:id/
 * suggestions), the heats (GET /api/events/:slug/heats/all), the participants
 * (GET /api/events/:slug/details) and the settings. A pin belongs to no run and the absent mark
 * has no read, so both are shown from the answers of this view (`overlay`, `absent`): after a
 * reload a pinned heat shows the run's suggestion it replaced, or none, and the absent column `—`.
 */
import { del, get, post, put, SessionEnded, slugPath } from './api.js';
import { errorBox, field, fill, h, heatLabel, NONE, note, refusalBox, table } from './dom.js';

const HEAT_COLUMNS = ['Heat', 'Dancer', 'Recorder', 'Status', 'Why', 'Actions'];
const PARTICIPANT_COLUMNS = ['Participant', 'Absent', 'Actions'];
/** A heat's current state is its pending, accepted or not_found suggestion; the other statuses are history. */
const LIVE = new Set(['pending', 'accepted', 'not_found']);
const LOCALITY = { city: 'same city', country: 'same country', anywhere: 'another country' };

/** The "why" of a suggestion as a short text: locality tier, opt-out used, the recorder's balance, pinned. */
export function whyText(why) {
  if (!why) return NONE;
  const balance = why.recorderBalance > 0 ? `+${why.recorderBalance}` : String(why.recorderBalance);
  return [
    LOCALITY[why.locality] ?? why.locality,
    why.optOut ? 'opted out, used' : null,
    `balance ${balance}`,
    why.pinned ? 'pinned' : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** A select of numbers from..to, the current value selected. */
function numberSelect(id, from, to) {
  const options = [];
  for (let n = from; n <= to; n++) options.push(h('option', { value: String(n) }, String(n)));
  return h('select', { id, name: id, testid: id }, options);
}

export function matchingPeople(ctx) {
  const slug = slugPath(ctx.slug);
  const state = {
    heats: [], // { heat, dancer: { id, username } }
    participants: [], // { userId, username }
    fromRuns: new Map(), // heatId → suggestion (from the runs' lists)
    overlay: new Map(), // heatId → suggestion (answers of pins and removals made here)
    absent: new Map(), // userId → true | false (answers of this view)
    settingsShown: false, // the form is filled once: a later reload of the runs keeps what is being edited
  };
  const alive = (err) => !(err instanceof SessionEnded) && ctx.alive();

  // ---- settings -----------------------------------------------------------------------
  const settings = {
    bufferBefore: numberSelect('settings-buffer-before', 0, 2),
    bufferAfter: numberSelect('settings-buffer-after', 0, 2),
    maxRecordingsPerPerson: numberSelect('settings-max-recordings', 1, 5),
    optOutMode: h(
      'select',
      { id: 'settings-opt-out-mode', name: 'optOutMode', testid: 'settings-opt-out-mode' },
      h('option', { value: 'last' }, 'last (only when coverage needs them)'),
      h('option', { value: 'exclude' }, 'exclude (never record)'),
    ),
  };
  const settingsSubmit = h('button', { type: 'submit', testid: 'settings-submit' }, 'Save settings');
  const settingsSlot = h('div', { class: 'slot' });
  const showSettings = (data) => {
    settings.bufferBefore.value = String(data.bufferBefore);
    settings.bufferAfter.value = String(data.bufferAfter);
    settings.maxRecordingsPerPerson.value = String(data.maxRecordingsPerPerson);
    settings.optOutMode.value = data.optOutMode;
  };
  const saveSettings = async (e) => {
    e.preventDefault();
    settingsSubmit.disabled = true;
    fill(settingsSlot);
    try {
      const { data } = await put(`/api/events/${slug}/matching-settings`, {
        bufferBefore: Number(settings.bufferBefore.value),
        bufferAfter: Number(settings.bufferAfter.value),
        maxRecordingsPerPerson: Number(settings.maxRecordingsPerPerson.value),
        optOutMode: settings.optOutMode.value,
      });
      if (!ctx.alive()) return;
      showSettings(data);
      fill(settingsSlot, note('settings-saved', 'Settings saved. They apply to the next run and preview.'));
      settingsSlot.firstChild.focus();
    } catch (err) {
      if (!alive(err)) return;
      fill(settingsSlot, errorBox('settings-error', err));
      settingsSlot.firstChild.setAttribute('tabindex', '-1');
      settingsSlot.firstChild.focus();
    } finally {
      if (ctx.alive()) settingsSubmit.disabled = false;
    }
  };
  const settingsSection = h(
    'section',
    { 'aria-labelledby': 'settings-heading', class: 'panel' },
    h('h2', { id: 'settings-heading' }, 'Matching settings'),
    h(
      'p',
      { class: 'muted' },
      'Buffers: heats before and after a dancer\u2019s own heat he/she does not record. Cap: recordings per person. ' +
        'Opted-out participants record last, or never.',
    ),
    settingsSlot,
    h(
      'form',
      { novalidate: true, class: 'grid-form', onsubmit: saveSettings },
      field('Buffer before (heats)', settings.bufferBefore),
      field('Buffer after (heats)', settings.bufferAfter),
      field('Recordings per person (max)', settings.maxRecordingsPerPerson),
      field('Opted-out participants', settings.optOutMode),
      h('div', { class: 'actions' }, settingsSubmit),
    ),
  );

  // ---- heats, pins and removals -------------------------------------------------------------
  const heatsTable = table('heats-table', 'Every heat of the event and its current recorder', HEAT_COLUMNS, []);
  const heatsBody = heatsTable.tBodies[0];
  const planSlot = h('div', { class: 'slot' });
  const pinHeat = h('select', { id: 'pin-heat', name: 'heatId', testid: 'pin-heat' });
  const pinRecorder = h('select', { id: 'pin-recorder', name: 'recorderId', testid: 'pin-recorder' });
  const pinSubmit = h('button', { type: 'submit', testid: 'pin-submit' }, 'Pin recorder');
  const pinSlot = h('div', { class: 'slot' });

  const currentOf = (heatId) => state.overlay.get(heatId) ?? state.fromRuns.get(heatId) ?? null;

  function heatRow({ heat, dancer }) {
    const s = currentOf(heat.id);
    const label = heatLabel(heat);
    const remove =
      s?.status === 'pending'
        ? h(
            'button',
            {
              type: 'button',
              testid: 'suggestion-remove',
              'aria-label': `Remove the suggestion for ${label}, ${dancer.username}`,
              onclick: () => removeSuggestion(s, label),
            },
            'Remove',
          )
        : null;
    const choose = h(
      'button',
      {
        type: 'button',
        testid: 'heat-pin',
        'aria-label': `Pin a recorder to ${label}, ${dancer.username}`,
        onclick: () => {
          pinHeat.value = String(heat.id);
          pinRecorder.focus();
        },
      },
      'Pin\u2026',
    );
    return h(
      'tr',
      { 'data-heat-id': heat.id, 'data-suggestion-id': s?.id ?? null },
      h('td', {}, label),
      h('td', {}, dancer.username),
      h('td', {}, s?.recorder?.username ?? NONE),
      h('td', {}, s ? s.status + (s.pinned ? ' (pinned)' : '') : NONE),
      h('td', {}, whyText(s?.why)),
      h('td', { class: 'row-actions' }, choose, ' ', remove),
    );
  }

  const showHeats = () => fill(heatsBody, state.heats.map(heatRow));

  function showPinOptions() {
    const keep = [pinHeat.value, pinRecorder.value];
    fill(
      pinHeat,
      h('option', { value: '' }, 'Choose a heat'),
      state.heats.map(({ heat, dancer }) =>
        h('option', { value: String(heat.id) }, `${heatLabel(heat)} \u2014 ${dancer.username}`),
      ),
    );
    fill(
      pinRecorder,
      h('option', { value: '' }, 'Choose a recorder'),
      state.participants.map((p) => h('option', { value: String(p.userId) }, p.username)),
    );
    [pinHeat.value, pinRecorder.value] = keep;
  }

  /** The suggestion of each heat in the runs' lists: the newest run's live one, else its newest history. */
  async function loadRunSuggestions(runs) {
    const lists = await Promise.all(
      runs.map((run) =>
        get(`/api/admin/events/${slug}/matching-runs/${encodeURIComponent(run.id)}/suggestions`).then((r) => r.data),
      ),
    );
    const live = new Map();
    const history = new Map();
    for (const list of lists)
      for (const s of list) {
        const into = LIVE.has(s.status) ? live : history;
        if (!into.has(s.heat.id)) into.set(s.heat.id, s);
      }
    state.fromRuns = new Map([...history, ...live]);
  }

  async function pin(e) {
    e.preventDefault();
    fill(pinSlot);
    if (!pinHeat.value || !pinRecorder.value) {
      fill(pinSlot, errorBox('pin-error', { message: 'Choose a heat and a recorder.' }));
      return;
    }
    pinSubmit.disabled = true;
    try {
      const { data } = await post(`/api/admin/events/${slug}/match-suggestions`, {
        heatId: Number(pinHeat.value),
        recorderId: Number(pinRecorder.value),
      });
      if (!ctx.alive()) return;
      state.overlay.set(data.heat.id, data);
      showHeats();
      const text = `Pinned ${data.recorder.username} to ${heatLabel(data.heat)} (${data.dancer.username}).`;
      fill(pinSlot, note('pin-result', text));
      pinSlot.firstChild.focus();
    } catch (err) {
      if (!alive(err)) return;
      // a refusal names the first rule the pin broke (its code and message); nothing changed
      fill(pinSlot, refusalBox('pin-error', err));
      pinSlot.firstChild.setAttribute('tabindex', '-1');
      pinSlot.firstChild.focus();
    } finally {
      if (ctx.alive()) pinSubmit.disabled = false;
    }
  }

  async function removeSuggestion(s, label) {
    fill(planSlot);
    try {
      const { data } = await del(`/api/admin/events/${slug}/match-suggestions/${s.id}`);
      if (!ctx.alive()) return;
      state.overlay.set(data.heat.id, data);
      showHeats();
      fill(planSlot, note('plan-result', `Removed ${data.recorder?.username ?? 'the suggestion'} from ${label}.`));
    } catch (err) {
      if (!alive(err)) return;
      fill(planSlot, refusalBox('plan-error', err));
      planSlot.firstChild.setAttribute('tabindex', '-1');
    }
    planSlot.firstChild?.focus();
  }

  const heatsSection = h(
    'section',
    { 'aria-labelledby': 'heats-heading', class: 'panel' },
    h('h2', { id: 'heats-heading' }, 'Heats and recorders'),
    h(
      'p',
      { class: 'muted' },
      'The current suggestion of each heat as the runs have it, with pins and removals made here. ' +
        'Why: locality of dancer and recorder, whether an opted-out recorder was used, the recorder\u2019s balance ' +
        '(recordings received minus done at other events), pinned.',
    ),
    planSlot,
    h('div', { class: 'table-wrap' }, heatsTable),
    h('h3', { id: 'pin-heading' }, 'Pin a recorder'),
    pinSlot,
    h(
      'form',
      { novalidate: true, class: 'grid-form', 'aria-labelledby': 'pin-heading', onsubmit: pin },
      field('Heat', pinHeat),
      field('Recorder', pinRecorder),
      h('div', { class: 'actions' }, pinSubmit),
    ),
  );

  // ---- participants: absent -----------------------------------------------------------------
  const participantsTable = table('participants-table', 'Participants of the event', PARTICIPANT_COLUMNS, []);
  const participantsBody = participantsTable.tBodies[0];
  const absentSlot = h('div', { class: 'slot' });

  function participantRow(p) {
    const known = state.absent.get(p.userId);
    const button = (testid, text, onclick) =>
      h('button', { type: 'button', testid, 'aria-label': `${text}: ${p.username}`, onclick }, text);
    return h(
      'tr',
      { 'data-user-id': p.userId },
      h('td', {}, p.username),
      h('td', { testid: 'absent-state' }, known === undefined ? NONE : known ? 'yes' : 'no'),
      h(
        'td',
        { class: 'row-actions' },
        button('absent-mark', 'Mark absent', () => setAbsent(p, true)),
        ' ',
        button('absent-clear', 'Clear absent', () => setAbsent(p, false)),
      ),
    );
  }

  const showParticipants = () => fill(participantsBody, state.participants.map(participantRow));

  async function setAbsent(p, absent) {
    fill(absentSlot);
    const path = `/api/admin/events/${slug}/participants/${p.userId}/absent`;
    try {
      const { data } = absent ? await post(path) : await del(path);
      if (!ctx.alive()) return;
      state.absent.set(p.userId, data.absent);
      if (data.absent)
        for (const [heatId, s] of state.overlay)
          if (s.recorder?.id === p.userId && (s.status === 'pending' || s.status === 'accepted'))
            state.overlay.set(heatId, { ...s, status: 'cancelled' });
      const runs = ctx.runs();
      await loadRunSuggestions(runs);
      if (!ctx.alive()) return;
      showHeats();
      showParticipants();
      const text = data.absent
        ? `${p.username} is marked absent; ${data.cancelledSuggestions} suggestion(s) as recorder cancelled.`
        : `${p.username} is no longer marked absent; later runs may use him/her again.`;
      fill(absentSlot, note('absent-result', text));
    } catch (err) {
      if (!alive(err)) return;
      fill(absentSlot, refusalBox('absent-error', err));
      absentSlot.firstChild.setAttribute('tabindex', '-1');
    }
    absentSlot.firstChild?.focus();
  }

  const participantsSection = h(
    'section',
    { 'aria-labelledby': 'participants-heading', class: 'panel' },
    h('h2', { id: 'participants-heading' }, 'Participants: no-shows'),
    h(
      'p',
      { class: 'muted' },
      'An absent participant records nobody in later runs (his/her suggestions as recorder are cancelled); ' +
        'his/her own heats are still matched. Absent shows what was set here (\u2014: not changed in this view).',
    ),
    absentSlot,
    h('div', { class: 'table-wrap' }, participantsTable),
  );

  return {
    sections: [settingsSection, heatsSection, participantsSection],
    /** Loads settings, heats, participants and the runs' suggestions (after every load of the runs). */
    async load(runs) {
      const [settingsAnswer, heats, details] = await Promise.all([
        state.settingsShown ? null : get(`/api/events/${slug}/matching-settings`),
        get(`/api/events/${slug}/heats/all`),
        get(`/api/events/${slug}/details`),
        loadRunSuggestions(runs),
      ]);
      if (!ctx.alive()) return;
      if (!state.settingsShown) showSettings(settingsAnswer.data);
      state.settingsShown = true;
      state.heats = heats.data.flatMap((group) =>
        group.heats.map((heat) => ({ heat, dancer: { id: group.userId, username: group.username } })),
      );
      state.participants = [...details.data.participants].sort((a, b) => a.username.localeCompare(b.username));
      showHeats();
      showPinOptions();
      showParticipants();
    },
  };
}
