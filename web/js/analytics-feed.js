// The analytics counters are not part of the player's snapshot, and the `analytics` event
// carries only the pending count, so the totals come from GET /v1/analytics: once per
// connection (with the snapshot), after every `analytics` event (a delivery sent, refused
// or to be retried), and on state changes while analytics is on (they record events that
// stay pending, unannounced, while the collector is down and a retry waits). No timer:
// between those moments the counters do not change, but for a `playing` event recorded
// every --analytics-interval while the collector is down, which shows with the next retry.

import { latestOnly } from './latest.js';

/// `fetchStatus()` resolves to the daemon's analytics status; `onStatus(status)` gets each
/// answer (null when the daemon has no analytics API at all).
export function followAnalytics({ fetchStatus, onStatus }) {
  let enabled = false;
  // One request at a time; triggers arriving meanwhile make one more, not one each.
  const ask = latestOnly(async () => {
    try {
      const status = await fetchStatus();
      enabled = Boolean(status?.enabled);
      onStatus(status ?? null);
    } catch (error) {
      // An older daemon: say so rather than show stale counters. A network error leaves
      // the counters as they were; the next connection asks again.
      if (error?.code === 'route_not_found') {
        enabled = false;
        onStatus(null);
      }
    }
  });

  return {
    refresh: () => ask(null),
    onEvent({ type }) {
      if (type === 'snapshot' || type === 'analytics' || (type === 'state' && enabled)) ask(null);
    },
  };
}
