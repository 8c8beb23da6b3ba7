// The offline library: each item with its state, its download's progress, its error and
// its licence, with pause, resume, play and delete (after a question in a <dialog>, as the
// page asks nothing through confirm()); a form that adds an item; the space used. The list
// is GET /v1/library (library-feed.js), its progress kept current by `download` events.
//
// Rows are kept by item id and updated field by field, never rebuilt: a progress bar moves
// in place, and the button under the viewer's finger (or keyboard focus) stays where it is.

import { $, isBusy, setAttr, setDisabled, setHidden, setText, whileBusy } from './dom.js';
import { formatBytes, formatMB, formatPercent, formatTime } from './format.js';
import { itemName } from './view-queue.js';

const REASONS = {
  date: 'the expiry date has passed',
  plays: 'all plays are used',
  playTime: 'the play time is used up',
};

/// What a licence allows and what is used of it, in words: "Plays 1 of 3 · Play time 0:42
/// of 10:00 · Expires 31 Dec 2026, 23:59", or "Expired: all plays are used".
export function licenseText(license, now = Date.now()) {
  if (!license) return '';
  if (license.expired) {
    return `Expired: ${REASONS[license.reason] ?? license.reason ?? 'the licence is spent'}`;
  }
  const parts = [];
  if (Number.isInteger(license.maxPlays)) parts.push(`Plays ${license.plays} of ${license.maxPlays}`);
  else if (license.plays > 0) parts.push(`Played ${license.plays} time${license.plays === 1 ? '' : 's'}`);
  if (Number.isFinite(license.maxPlayTime)) {
    parts.push(`Play time ${formatTime(license.playTime)} of ${formatTime(license.maxPlayTime)}`);
  } else if (license.playTime > 0) {
    parts.push(`Play time ${formatTime(license.playTime)}`);
  }
  if (license.expires) {
    const at = new Date(license.expires);
    const when = Number.isNaN(at.getTime()) ? license.expires : at.toLocaleString(undefined, {
      day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit',
    });
    parts.push(`${at.getTime() <= now ? 'Expired' : 'Expires'} ${when}`);
  }
  return parts.length ? parts.join(' · ') : 'No licence limits';
}

/// "0.52 / 1.31 MB · 40%", "1.31 MB" once complete, "0.52 MB so far" without a known size.
export function progressText(item) {
  if (item.state === 'complete') return `${formatMB(item.bytes)} MB`;
  if (Number.isFinite(item.totalBytes)) {
    const fraction = Number.isFinite(item.progress) ? item.progress : (item.totalBytes > 0 ? item.bytes / item.totalBytes : 0);
    return `${formatMB(item.bytes)} / ${formatMB(item.totalBytes)} MB · ${formatPercent(fraction)}`;
  }
  return item.bytes > 0 ? `${formatMB(item.bytes)} MB so far` : 'Size not known yet';
}

function titleOf(item) {
  return item.title || item.contentId;
}

/// The RFC 3339 time of a datetime-local value (the viewer's local time), to the second.
function rfc3339(local) {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? null : at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function element(tag, className, attributes = {}) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  return el;
}

export function mountLibrary({ actions }) {
  const summary = $('[data-field="library-summary"]');
  const usage = $('[data-field="library-usage"]');
  const list = $('[data-field="library"]');
  const empty = $('[data-field="library-empty"]');
  const heading = $('#library-title');
  const form = $('[data-form="library-add"]');
  const dialog = $('[data-field="library-confirm"]');
  const dialogText = $('[data-field="library-confirm-text"]');

  const rows = new Map(); // id -> {li, parts}
  let current = null;
  let confirming = null; // the item the dialog asks about

  // MARK: the add form

  for (const name of ['uri', 'contentId']) {
    form.elements[name].addEventListener('input', () => form.elements[name].removeAttribute('aria-invalid'));
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (form.getAttribute('aria-busy') === 'true') return;
    const data = new FormData(form);
    const text = (name) => String(data.get(name) ?? '').trim();
    const body = { uri: text('uri'), contentId: text('contentId') };
    const missing = ['uri', 'contentId'].filter((name) => !body[name]);
    for (const name of missing) form.elements[name].setAttribute('aria-invalid', 'true');
    if (missing.length) {
      form.elements[missing[0]].focus();
      return;
    }
    if (text('title')) body.title = text('title');
    const license = {};
    const maxPlays = text('maxPlays');
    if (maxPlays !== '' && Number.isInteger(Number(maxPlays)) && Number(maxPlays) >= 0) license.maxPlays = Number(maxPlays);
    const expires = text('expires') && rfc3339(text('expires'));
    if (expires) license.expires = expires;
    if (Object.keys(license).length) body.license = license;

    form.setAttribute('aria-busy', 'true');
    try {
      // The new row comes with the `library` event; the error box tells a refusal.
      if (await actions.libraryAdd(body)) form.reset();
    } finally {
      form.removeAttribute('aria-busy');
    }
  });

  // MARK: the delete question

  dialog.addEventListener('close', () => {
    const item = confirming;
    confirming = null;
    const button = item && rows.get(item.id)?.parts.remove;
    // Back to the button that asked (browsers differ in restoring it); once its row goes,
    // the render passes the focus on to the heading.
    if (button && dialog.returnValue !== 'gone') button.focus();
    if (dialog.returnValue !== 'delete' || !item) return;
    const done = actions.libraryRemove(item.id);
    (button ? whileBusy(button, done) : done).then(() => current && render(current));
  });

  function askDelete(item) {
    confirming = item;
    setText(dialogText, `The downloaded copy of “${titleOf(item)}” and its licence are removed from this device. `
      + 'Downloading it again starts from nothing.');
    dialog.returnValue = '';
    dialog.showModal();
  }

  // MARK: rows

  function makeRow(id) {
    const li = element('li', 'library-item', { 'data-id': id });
    const head = element('div', 'library-head');
    const title = element('span', 'library-title', { 'data-field': 'library-title' });
    const state = element('span', 'library-state', { 'data-field': 'library-state' });
    head.append(title, state);
    const sub = element('div', 'library-sub mono muted-text', { 'data-field': 'library-sub' });
    const progressRow = element('div', 'library-progress');
    const bar = element('progress', 'library-bar', { max: '1', 'data-field': 'library-bar' });
    const bytes = element('span', 'library-bytes', { 'data-field': 'library-bytes' });
    progressRow.append(bar, bytes);
    const error = element('div', 'library-error', { 'data-field': 'library-error', role: 'status' });
    const license = element('div', 'library-license', { 'data-field': 'library-license' });
    const buttons = element('div', 'library-actions', { role: 'group' });
    const button = (action, label, extra = '') => {
      const b = element('button', `button${extra}`, { type: 'button', 'data-action': action });
      b.textContent = label;
      buttons.append(b);
      return b;
    };
    const pause = button('library-pause', 'Pause');
    const resume = button('library-resume', 'Resume');
    const play = button('library-play', 'Play', ' button-primary');
    const remove = button('library-delete', 'Delete', ' button-danger');
    li.append(head, sub, progressRow, error, license, buttons);

    // Each button ignores clicks until the daemon answered the last one; the events that
    // follow bring the item's new state.
    const wire = (b, act) => b.addEventListener('click', () => {
      const item = current?.library?.items?.find((i) => i.id === id);
      if (!item || isBusy(b)) return;
      whileBusy(b, act(item)).then(() => current && render(current));
    });
    wire(pause, (item) => actions.libraryPause(item.id));
    wire(resume, (item) => actions.libraryResume(item.id));
    wire(play, (item) => actions.libraryPlay(item));
    remove.addEventListener('click', () => {
      const item = current?.library?.items?.find((i) => i.id === id);
      if (item && !isBusy(remove)) askDelete(item);
    });
    return { li, parts: { title, state, sub, bar, bytes, error, license, buttons, pause, resume, play, remove } };
  }

  function updateRow(row, item) {
    // Renders come with every player event (positions 4 times a second): a row whose item
    // did not change is left alone.
    const key = JSON.stringify(item);
    if (row.key === key) return;
    row.key = key;
    const { li, parts } = row;
    const name = titleOf(item);
    setAttr(li, 'data-state', item.state);
    setText(parts.title, name);
    setAttr(parts.title, 'title', item.uri);
    setText(parts.state, item.state);
    setAttr(parts.state, 'data-state', item.state);
    const sub = [item.title ? item.contentId : null, item.userId ? `user ${item.userId}` : null, itemName(item.uri)];
    setText(parts.sub, sub.filter(Boolean).join(' · '));
    setAttr(parts.sub, 'title', item.uri);

    // The bar: indeterminate while the size is not known (a <progress> without a value).
    const value = item.state === 'complete' ? 1 : item.progress;
    if (Number.isFinite(value)) {
      const text = String(Math.min(1, Math.max(0, value)));
      if (parts.bar.getAttribute('value') !== text) parts.bar.value = Number(text);
    } else if (parts.bar.hasAttribute('value')) {
      parts.bar.removeAttribute('value');
    }
    setAttr(parts.bar, 'aria-label', `Download of ${name}`);
    setAttr(parts.bar, 'data-bytes', String(item.bytes));
    setAttr(parts.bar, 'data-total', Number.isFinite(item.totalBytes) ? String(item.totalBytes) : null);
    const progress = progressText(item);
    setText(parts.bytes, progress);
    setAttr(parts.bar, 'aria-valuetext', progress);

    // A failure, or a fault the download rides out while it stays `downloading`.
    const error = item.error;
    setHidden(parts.error, !error);
    setText(parts.error, error
      ? `${item.state === 'failed' ? 'Failed' : 'Retrying'}: ${error.message} (${error.code})`
      : '');
    parts.error.classList.toggle('error-text', item.state === 'failed');
    setAttr(parts.error, 'data-code', error ? error.code : null);

    const license = item.license ?? {};
    setText(parts.license, licenseText(license));
    setAttr(parts.license, 'data-expired', String(Boolean(license.expired)));
    setAttr(parts.license, 'data-reason', license.reason ?? null);
    parts.license.classList.toggle('error-text', Boolean(license.expired));

    // The buttons the state allows (the daemon pauses queued and downloading items, and
    // resumes paused and failed ones); Play once complete, disabled when the licence is spent.
    setAttr(parts.buttons, 'aria-label', `Actions for ${name}`);
    const canPause = item.state === 'queued' || item.state === 'downloading';
    const canResume = item.state === 'paused' || item.state === 'failed';
    const complete = item.state === 'complete';
    const focused = document.activeElement;
    const hiding = [[parts.pause, !canPause], [parts.resume, !canResume], [parts.play, !complete]]
      .some(([b, hide]) => hide && b === focused && !b.hidden);
    setHidden(parts.pause, !canPause);
    setHidden(parts.resume, !canResume);
    setText(parts.resume, item.state === 'failed' ? 'Retry' : 'Resume');
    setHidden(parts.play, !complete);
    setDisabled(parts.play, complete && Boolean(license.expired));
    setAttr(parts.pause, 'aria-label', `Pause the download of ${name}`);
    setAttr(parts.resume, 'aria-label', `${item.state === 'failed' ? 'Retry' : 'Resume'} the download of ${name}`);
    setAttr(parts.play, 'aria-label', license.expired ? `Play ${name} (the licence is spent)` : `Play ${name}`);
    setAttr(parts.remove, 'aria-label', `Delete ${name} from the library`);
    // The button just pressed went away with the state it acted on (Pause once paused):
    // keep the keyboard in the row, on the button that took its place.
    if (hiding) {
      const next = [parts.pause, parts.resume, parts.play, parts.remove].find((b) => !b.hidden && !b.disabled);
      next?.focus();
    }
  }

  function render(state) {
    current = state;
    const library = state.library;
    const unavailable = !library || Boolean(library.unavailable);
    const items = unavailable ? [] : (library.items ?? []);

    if (!library) setText(summary, 'Not known yet');
    else if (library.unavailable) setText(summary, 'Not offered by this daemon');
    else if (!items.length) setText(summary, 'Empty');
    else {
      const counts = {};
      for (const item of items) counts[item.state] = (counts[item.state] ?? 0) + 1;
      const detail = ['downloading', 'queued', 'paused', 'failed'].filter((s) => counts[s]).map((s) => `${counts[s]} ${s}`);
      setText(summary, `${items.length} item${items.length === 1 ? '' : 's'}${detail.length ? ` · ${detail.join(', ')}` : ''}`);
    }
    setAttr(summary, 'data-count', unavailable ? null : String(items.length));

    if (unavailable) setText(usage, '');
    else if (Number.isFinite(library.quotaBytes)) setText(usage, `${formatBytes(library.usedBytes)} used of ${formatBytes(library.quotaBytes)}`);
    else setText(usage, `${formatBytes(library.usedBytes)} used · no quota`);
    setAttr(usage, 'data-used', unavailable ? null : String(library.usedBytes));
    setAttr(usage, 'data-quota', !unavailable && Number.isFinite(library.quotaBytes) ? String(library.quotaBytes) : null);

    setHidden(list, !items.length);
    setHidden(empty, unavailable || items.length > 0);
    for (const el of form.elements) setDisabled(el, unavailable);

    // Rows by id, in the daemon's order (oldest first); gone items leave.
    const ids = new Set(items.map((item) => item.id));
    let lostFocus = false;
    for (const [id, row] of rows) {
      if (ids.has(id)) continue;
      lostFocus ||= row.li.contains(document.activeElement);
      row.li.remove();
      rows.delete(id);
    }
    let previous = null;
    for (const item of items) {
      let row = rows.get(item.id);
      if (!row) {
        row = makeRow(item.id);
        rows.set(item.id, row);
      }
      updateRow(row, item);
      const wanted = previous ? previous.nextSibling : list.firstChild;
      if (wanted !== row.li) list.insertBefore(row.li, wanted);
      previous = row.li;
    }
    // A deleted item took the focus with it: give it to the card's heading, not the page.
    if (lostFocus) heading.focus();

    // The item asked about went away meanwhile (deleted elsewhere): nothing left to ask.
    if (dialog.open && confirming && !ids.has(confirming.id)) dialog.close('gone');
  }
  return render;
}
