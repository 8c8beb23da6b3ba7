// The analytics outbox: whether events are recorded and where they go, the pending, sent,
// failed and dropped counters, the last delivery error while events wait, and dropping the
// pending backlog (DELETE /v1/analytics).

import { $, isBusy, setAttr, setDisabled, setHidden, setText, whileBusy } from './dom.js';

export function mountAnalytics({ actions }) {
  const stateLine = $('[data-field="analytics-state"]');
  const url = $('[data-field="analytics-url"]');
  const counters = Object.fromEntries(['pending', 'sent', 'failed', 'dropped']
    .map((name) => [name, $(`[data-field="analytics-${name}"]`)]));
  const errorRow = $('[data-field="analytics-error-row"]');
  const errorText = $('[data-field="analytics-error"]');
  const drop = $('[data-action="analytics-drop"]');

  let current = null;
  drop.addEventListener('click', () => {
    if (isBusy(drop)) return;
    whileBusy(drop, actions.analyticsDrop()).then(() => current && render(current));
  });

  function render(state) {
    current = state;
    const status = state.analytics;
    const unavailable = Boolean(status?.unavailable);
    const known = Boolean(status) && !unavailable;
    const enabled = Boolean(status?.enabled);

    let line = 'Not known yet';
    if (unavailable) line = 'Not offered by this daemon';
    else if (known && !enabled) line = 'Off (the daemon runs without --analytics-url)';
    else if (known && status.pending > 0 && status.lastError) line = 'Delivery failing: events wait';
    else if (known && status.pending > 0) line = 'Delivering';
    else if (known) line = 'Up to date';
    setText(stateLine, line);
    setAttr(stateLine, 'data-enabled', known ? String(enabled) : 'unknown');
    setText(url, enabled && status.url ? `to ${status.url}` : '');

    for (const [name, el] of Object.entries(counters)) {
      const value = known && enabled ? status[name] : null;
      setText(el, Number.isFinite(value) ? String(value) : '–');
      setAttr(el, 'data-value', Number.isFinite(value) ? String(value) : null);
    }
    counters.failed.classList.toggle('error-text', enabled && status.failed > 0);

    const lastError = enabled ? status.lastError : null;
    setHidden(errorRow, !lastError);
    setText(errorText, lastError ?? '');

    setDisabled(drop, !enabled || !(status.pending > 0));
  }
  return render;
}
