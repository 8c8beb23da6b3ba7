// The offline library is not part of the player's snapshot, so the list comes from
// GET /v1/library: once per connection (with the snapshot), on every `library` event (an
// item added or removed, a licence renewed or a play counted), and when a `download` event
// says an item changed state (it carries no `error` nor `completedAt`: a failure's reason
// needs the item). Progress between those moments is applied in place from the `download`
// events themselves (state.js), without asking again.
//
// Two things change with no event: the play time of a copy that plays (saved every 5 s),
// asked for again at each player state change while a copy plays; and a dated licence
// running out, asked for again just after its expiry.

import { latestOnly } from './latest.js';

// setTimeout takes at most 2^31 - 1 ms (24.8 days); a later expiry is looked at again then.
const MAX_TIMER_MS = 2 ** 31 - 1;

/// `fetchList()` resolves to GET /v1/library's answer; `onList(list)` gets each answer
/// (null when the daemon has no offline library).
export function followLibrary({ fetchList, onList }) {
  const known = new Map(); // id -> the state last heard of, to tell a state change
  let offline = false; // whether the player's source is a library copy
  let expiryTimer = null;

  const ask = latestOnly(async () => {
    try {
      const list = await fetchList();
      known.clear();
      for (const item of list?.items ?? []) known.set(item.id, item.state);
      watchExpiry(list?.items ?? []);
      onList(list ?? null);
    } catch (error) {
      // An older daemon (no route), or one running without the library: say so rather
      // than keep a stale list. A network error keeps the list; the next connection asks.
      if (error?.code === 'route_not_found' || error?.code === 'not_found') {
        known.clear();
        onList(null);
      }
    }
  });
  const refresh = () => ask(null);

  function watchExpiry(items) {
    clearTimeout(expiryTimer);
    const now = Date.now();
    const next = Math.min(...items
      .filter((item) => !item.license?.expired && item.license?.expires)
      .map((item) => Date.parse(item.license.expires))
      .filter((at) => Number.isFinite(at) && at > now));
    if (Number.isFinite(next)) expiryTimer = setTimeout(refresh, Math.min(MAX_TIMER_MS, next - now + 1000));
  }

  return {
    refresh,
    onEvent({ type, data }) {
      switch (type) {
        case 'snapshot':
          offline = Boolean(data?.source?.offline);
          refresh();
          break;
        case 'library':
          refresh();
          break;
        case 'download':
          if (!data || known.get(data.id) !== data.state) {
            if (data) known.set(data.id, data.state);
            refresh();
          }
          break;
        case 'source': {
          const was = offline;
          offline = Boolean(data?.offline);
          if (was && !offline) refresh(); // a copy stopped playing: its play time is final
          break;
        }
        case 'state':
          if (offline) refresh();
          break;
        case 'error':
          if (offline || data?.code === 'license_expired') refresh();
          break;
        default:
          break;
      }
    },
  };
}
