// The page's frame: the state and connection pills, the "disconnected" banner, the error
// box and the tab title.

import { $, setAttr, setHidden, setText } from './dom.js';
import { errorText } from './format.js';

export function mountStatus({ onDismissError }) {
  const statePill = $('[data-field="state"]');
  const connection = $('[data-field="connection"]');
  const banner = $('[data-field="banner"]');
  const bannerText = $('[data-field="banner-text"]');
  const errorBox = $('[data-field="error-box"]');
  const errorField = $('[data-field="error"]');
  const errorDetail = $('[data-field="error-detail"]');

  // A player error stays in the snapshot until the next session (and comes again with the
  // snapshot after a reconnect), so dismissing remembers which error was put away; once
  // the errors clear, the next one shows whatever it is.
  const keyOf = (error) => (error ? `${error.code}\n${error.message ?? ''}` : null);
  let shown = null;
  let dismissed = null;
  $('[data-action="dismiss-error"]').addEventListener('click', () => {
    dismissed = keyOf(shown);
    onDismissError();
  });

  return function render({ player, connection: conn, commandError }) {
    setText(statePill, player.state);
    setAttr(statePill, 'data-state', player.state);

    const connected = conn.status === 'connected';
    setText(connection, connected ? 'connected' : 'disconnected');
    setAttr(connection, 'data-status', connected ? 'connected' : 'disconnected');

    // The banner waits for the first failure: a page that is still making its first
    // connection is not "disconnected" in any sense a viewer needs told.
    const showBanner = !connected && (conn.everConnected || conn.everFailed);
    setHidden(banner, !showBanner);
    if (showBanner) {
      const lost = conn.everConnected ? 'Connection to the daemon lost.' : 'Cannot reach the daemon.';
      const next = conn.status === 'connecting' || conn.retryInMs === null
        ? 'Reconnecting…'
        : `Retrying in ${Math.max(0.5, conn.retryInMs / 1000).toFixed(1)} s…`;
      setText(bannerText, `${lost} ${next}`);
    }
    document.body.classList.toggle('stale', !connected);

    // A command the daemon refused is the freshest news; otherwise the player's own error,
    // told in the session server's words when it blocked the viewing.
    const blocked = player.blocked && (!player.error || player.error.code === 'session_blocked')
      ? { code: 'session_blocked', message: player.blocked.message ?? player.error?.message, serverCode: player.blocked.code }
      : null;
    const candidate = commandError ?? blocked ?? player.error;
    if (!candidate) dismissed = null;
    const error = candidate && keyOf(candidate) === dismissed ? null : candidate;
    shown = error;
    setHidden(errorBox, !error);
    setText(errorField, error ? errorText(error.code) : '');
    setText(errorDetail, error && error.message && error.message !== errorText(error.code)
      ? `${error.message} (${error.serverCode ?? error.code})`
      : (error ? `(${error.code})` : ''));
    setAttr(errorField, 'data-code', error ? error.code : null);

    const title = player.source ? `${player.state} · Marquee` : 'Marquee';
    if (document.title !== title) document.title = title;
  };
}
