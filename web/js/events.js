// The live event stream: one WebSocket to /v1/events, reopened by itself when it drops
// (the daemon restarting, a network blip) with a backoff of 0.5 s doubling to 5 s.
//
// Before each connection attempt a plain HTTP probe goes first: a WebSocket handshake that
// fails tells the page nothing (no status), while the probe's 401 lets api.js ask for the
// token and its network error says the daemon is still away.

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 5000;

/// `probe()` resolves when the daemon answers (and the token is good); `url()` builds the
/// socket URL at each attempt (the token may have changed); `onEvent(event)` gets every
/// `{seq, type, data}`; `onStatus(status, info)` gets "connecting", "connected" (once the
/// first snapshot is in) and "disconnected" (with `{retryInMs}`).
export function connectEvents({ probe, url, onEvent, onStatus }) {
  let delay = FIRST_DELAY_MS;
  let timer = null;

  function scheduleRetry() {
    onStatus('disconnected', { retryInMs: delay });
    timer = setTimeout(attempt, delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }

  async function attempt() {
    timer = null;
    onStatus('connecting', {});
    try {
      await probe();
    } catch {
      scheduleRetry();
      return;
    }
    const socket = new WebSocket(url());
    // "Connected" is announced with the first snapshot, not when the socket opens: until
    // then the page holds the previous daemon's state, which must not be acted on (the
    // preview would ask a freshly restarted daemon for a picture it does not have).
    let synced = false;
    socket.addEventListener('message', (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return; // not ours to understand; the stream goes on
      }
      // Replies to WebSocket commands carry an `id` and no `seq`; the page sends none,
      // but ignore them in case.
      if (!event || typeof event.type !== 'string' || !('seq' in event)) return;
      onEvent(event);
      if (!synced && event.type === 'snapshot') {
        synced = true;
        delay = FIRST_DELAY_MS;
        onStatus('connected', {});
      }
    });
    // `error` is always followed by `close`, which does the retrying.
    socket.addEventListener('close', scheduleRetry);
  }

  // A tab brought back to the foreground retries at once instead of waiting the backoff out.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && timer !== null) {
      clearTimeout(timer);
      delay = FIRST_DELAY_MS;
      attempt();
    }
  });

  attempt();
}
