// The page's picture of the player, kept current by applying events to it. The first
// event of every connection is a full snapshot, and a later snapshot (sent after the
// client fell behind) replaces everything; every other event updates its part.

export function emptyPlayer() {
  return {
    state: 'idle',
    source: null,
    position: null,
    duration: null,
    rate: 1,
    volume: 1,
    muted: false,
    audioDelay: 0,
    buffering: 100,
    seekable: null,
    live: null,
    tracks: { audio: [], video: [], subtitle: [] },
    variants: [],
    variant: { mode: 'auto', selected: null, current: null },
    repeat: 'none',
    abLoop: null,
    pip: null,
    watermark: null,
    subtitleStyle: null,
    queue: null,
    cue: null,
    error: null,
    // The last `blocked` event ({code, message} from the session server) until the next source.
    blocked: null,
    // Not the daemon's: the distance from the live edge to the end of the seekable range
    // (null: not learnt yet for this source).
    liveGap: null,
  };
}

/// `live` events from a daemon before `seekable` was added carry the edge only. For timeshift the range ends a
/// few segments before the edge (the demuxer's hold-back), so the range is rebuilt from the
/// edge less that gap, learnt from a snapshot (`learnLiveGap`); until it is known the gap is
/// taken as 0.
function seekableFromLive(player, live) {
  const end = live.edge - (player.liveGap ?? 0);
  return { start: Math.min(end, end - live.window), end };
}

function gapOf(snapshot) {
  return snapshot.seekable && snapshot.live ? Math.max(0, snapshot.live.edge - snapshot.seekable.end) : null;
}

/// Takes the gap from a snapshot fetched over HTTP. Only the gap: the rest of such a
/// snapshot may be older than events already applied.
export function learnLiveGap(player, snapshot) {
  const gap = gapOf(snapshot);
  if (gap === null) return false;
  player.liveGap = gap;
  if (player.live) player.seekable = seekableFromLive(player, player.live);
  return true;
}

/// Applies one event to `player` in place. Unknown types are ignored: a newer daemon may
/// send more than this page knows.
export function applyEvent(player, { type, data }) {
  switch (type) {
    case 'snapshot':
      Object.assign(player, emptyPlayer(), data);
      player.liveGap = gapOf(data);
      break;
    case 'state':
      player.state = data.state;
      if (data.state === 'opening') {
        // A new source: the old one's timeline means nothing for it.
        // Nor its HLS ladder: the daemon announces a new ladder when it reads one, but not
        // that a new source has none.
        Object.assign(player, {
          position: null, duration: null, seekable: null, live: null, cue: null, abLoop: null, liveGap: null,
          variants: [], variant: { mode: 'auto', selected: null, current: null }, blocked: null,
        });
      }
      // The error belongs to the failed session; anything after it (a new open) clears it.
      if (data.state !== 'error') player.error = null;
      break;
    case 'position':
      player.position = data.position;
      player.duration = data.duration;
      break;
    case 'seek':
      // Show the accepted target at once; position events take over when it lands.
      player.position = data.position;
      break;
    case 'buffering':
      player.buffering = data.percent;
      break;
    case 'tracks':
      player.tracks = { audio: [], video: [], subtitle: [], ...data };
      break;
    case 'variants':
      player.variants = data ?? [];
      break;
    case 'variant':
      player.variant = data;
      break;
    case 'settings':
      Object.assign(player, {
        rate: data.rate,
        volume: data.volume,
        muted: data.muted,
        audioDelay: data.audioDelay,
        repeat: data.repeat,
        subtitleStyle: data.subtitleStyle ?? player.subtitleStyle,
        // Daemons before A-B loops did not send it: keep what the snapshot said.
        abLoop: data.abLoop === undefined ? player.abLoop : data.abLoop,
      });
      break;
    case 'queue':
      player.queue = data;
      break;
    case 'source':
      player.source = data;
      player.liveGap = null;
      player.blocked = null;
      if (!data) {
        // Unloaded: what described the old source no longer applies.
        Object.assign(player, {
          position: null, duration: null, seekable: null, live: null, cue: null,
          tracks: { audio: [], video: [], subtitle: [] }, variants: [],
          variant: { mode: 'auto', selected: null, current: null }, abLoop: null,
        });
      }
      break;
    case 'live':
      // The daemon's own range; rebuilt from the edge only for one that does not send it.
      player.seekable = 'seekable' in data ? data.seekable : seekableFromLive(player, data);
      player.live = data;
      break;
    case 'pip':
      player.pip = data;
      break;
    case 'watermark':
      player.watermark = data;
      break;
    case 'cue':
      player.cue = data;
      break;
    case 'error':
      player.error = data;
      break;
    case 'blocked':
      player.blocked = data;
      break;
    default:
      // eos (the state event says "ended"), reconnecting (handled by the store) and
      // anything newer change nothing here.
      break;
  }
}

/// Applies a `download` event to the library list (GET /v1/library as last answered) in
/// place: the item's state and byte counts, and the bytes used in all. An item the list
/// does not have yet is left for the fetch that its `library` event brings. Returns
/// whether anything changed.
export function applyDownload(library, data) {
  const item = library?.items?.find((i) => i.id === data.id);
  if (!item) return false;
  if (Number.isFinite(library.usedBytes) && Number.isFinite(data.bytes) && Number.isFinite(item.bytes)) {
    library.usedBytes += data.bytes - item.bytes;
  }
  item.state = data.state;
  item.bytes = data.bytes;
  item.totalBytes = data.totalBytes;
  item.progress = data.progress;
  return true;
}

/// The page's whole state: the player as last reported, plus what is the page's own
/// (the connection, the last failed command, a source reconnecting). Views subscribe and
/// re-render; renders are batched to one per task so a burst of events costs one pass.
export function createStore() {
  const state = {
    player: emptyPlayer(),
    connection: { status: 'disconnected', retryInMs: null, everConnected: false, everFailed: false },
    commandError: null,
    reconnecting: null,
    // GET /v1/analytics as last answered (not part of the snapshot); null until asked,
    // {unavailable: true} from a daemon without it.
    analytics: null,
    // GET /v1/library as last answered, kept current by `download` events in between; null
    // until asked, {unavailable: true} from a daemon without the offline library.
    library: null,
  };
  const listeners = [];
  let scheduled = false;
  let onLiveGapUnknown = null;

  function notify() {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      for (const listener of listeners) listener(state);
    });
  }

  return {
    state,
    subscribe(listener) {
      listeners.push(listener);
      listener(state);
    },
    refresh: notify,
    /// `handler()` is called on `live` events while the gap is unknown (see seekableFromLive).
    onLiveGapUnknown(handler) {
      onLiveGapUnknown = handler;
    },
    learnLiveGap(snapshot) {
      if (learnLiveGap(state.player, snapshot)) notify();
    },
    applyEvent(event) {
      applyEvent(state.player, event);
      if (event.type === 'live' && !('seekable' in event.data) && state.player.liveGap === null && onLiveGapUnknown) {
        onLiveGapUnknown();
      }
      if (event.type === 'reconnecting') {
        // Shown until the retry is due plus a little, unless a newer notice replaces it.
        state.reconnecting = { ...event.data, until: Date.now() + (event.data.delay + 5) * 1000 };
      } else if (event.type === 'recovered' || event.type === 'snapshot' || (event.type === 'source' && !event.data)) {
        state.reconnecting = null;
      }
      if (event.type === 'download') applyDownload(state.library, event.data ?? {});
      if (event.type === 'analytics' && state.analytics?.enabled) {
        // The pending count at once; the totals follow from GET /v1/analytics.
        state.analytics = {
          ...state.analytics,
          pending: event.data.pending,
          // The daemon reports the last error only while events wait.
          lastError: event.data.pending === 0 ? null
            : (event.data.outcome === 'retrying' ? (event.data.reason ?? state.analytics.lastError) : state.analytics.lastError),
        };
      }
      notify();
    },
    setConnection(status, info = {}) {
      const connected = status === 'connected';
      state.connection = {
        status,
        retryInMs: info.retryInMs ?? null,
        everConnected: state.connection.everConnected || connected,
        // Since the last connection: keeps the banner up between attempts.
        everFailed: !connected && (state.connection.everFailed || status === 'disconnected'),
      };
      notify();
    },
    setAnalytics(status) {
      state.analytics = status;
      notify();
    },
    setLibrary(list) {
      state.library = list;
      notify();
    },
    setCommandError(error) {
      state.commandError = error;
      notify();
    },
  };
}
