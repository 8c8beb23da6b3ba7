// Wiring: the token, the store, the commands, the views and the event stream. Each
// module does one thing; this one only connects them.

import * as api from './api.js';
import { followAnalytics } from './analytics-feed.js';
import { connectEvents } from './events.js';
import { followLibrary } from './library-feed.js';
import { createStore } from './state.js';
import { mountAnalytics } from './view-analytics.js';
import { mountAuth } from './view-auth.js';
import { mountKeyboard } from './keyboard.js';
import { mountLibrary } from './view-library.js';
import { mountOpen } from './view-open.js';
import { mountOutput } from './view-output.js';
import { mountPreview } from './view-preview.js';
import { mountQueue } from './view-queue.js';
import { mountSettings } from './view-settings.js';
import { mountStatus } from './view-status.js';
import { mountTracks } from './view-tracks.js';
import { mountTransport } from './view-transport.js';

api.initToken();
api.setTokenProvider(mountAuth());

const store = createStore();

/// Runs one command. The player's answer arrives as events, so the reply itself is not
/// applied (it could be older than events already seen); a refusal is shown in the error
/// box, a success clears a previous refusal. Resolves to true when accepted.
async function command(method, path, body) {
  try {
    await api.call(method, path, body);
    if (store.state.commandError) store.setCommandError(null);
    return true;
  } catch (error) {
    store.setCommandError({ code: error.code ?? 'internal_error', message: error.message });
    return false;
  }
}

const preview = mountPreview({ fetchBlob: api.fetchBlob });
const analytics = followAnalytics({
  fetchStatus: () => api.call('GET', '/v1/analytics'),
  onStatus: (status) => store.setAnalytics(status ?? { unavailable: true }),
});
const library = followLibrary({
  fetchList: () => api.call('GET', '/v1/library'),
  onList: (list) => store.setLibrary(list ?? { unavailable: true }),
});

const actions = {
  open: (body) => {
    preview.holdForSourceChange();
    return command('POST', '/v1/player/open', body);
  },
  play: () => command('POST', '/v1/player/play'),
  pause: () => command('POST', '/v1/player/pause'),
  stop: () => {
    preview.holdForSourceChange();
    return command('POST', '/v1/player/stop');
  },
  seek: (position) => command('POST', '/v1/player/seek', { position }),
  seekBy: (offset) => command('POST', '/v1/player/seek', { offset }),
  live: () => command('POST', '/v1/player/live'),
  set: (settings) => command('PATCH', '/v1/player', settings),
  variant: (id) => command('POST', '/v1/player/variant', { id }),
  audioTrack: (id) => command('POST', '/v1/player/tracks/audio', { id }),
  subtitleTrack: (id) => command('POST', '/v1/player/tracks/subtitle', { id }),
  pipStart: (body) => command('POST', '/v1/pip', body),
  pipUpdate: (body) => command('PATCH', '/v1/pip', body),
  pipSwap: () => command('POST', '/v1/pip/swap'),
  pipStop: () => command('DELETE', '/v1/pip'),
  watermarkSet: (body) => command('PUT', '/v1/overlays/watermark', body),
  watermarkRemove: () => command('DELETE', '/v1/overlays/watermark'),
  // No preview hold here, unlike open and stop: another item opens at once, and the daemon
  // holds a frame request while a source opens rather than answer 503. Cancelling the
  // request on its way would not free it on the daemon, which encodes at most 4 at once:
  // a few quick clicks would pile up held requests and get 429s.
  queueNext: () => command('POST', '/v1/queue/next'),
  queuePrevious: () => command('POST', '/v1/queue/previous'),
  queueClear: () => command('PUT', '/v1/queue', { items: [] }),
  queueLoop: (loop) => command('PATCH', '/v1/queue', { loop }),
  // No event tells of a drop: the counters are asked for again once it is done.
  analyticsDrop: () => command('DELETE', '/v1/analytics').finally(analytics.refresh),
  // The library's changes come as `library` and `download` events; an id is one path
  // segment, percent-encoded.
  libraryAdd: (body) => command('POST', '/v1/library', body),
  libraryPause: (id) => command('POST', `/v1/library/${encodeURIComponent(id)}/pause`),
  libraryResume: (id) => command('POST', `/v1/library/${encodeURIComponent(id)}/resume`),
  libraryRemove: (id) => command('DELETE', `/v1/library/${encodeURIComponent(id)}`),
  // The copy plays by its content id (and user, when it has one): open {contentId}.
  libraryPlay: (item) => actions.open(item.userId ? { contentId: item.contentId, userId: item.userId } : { contentId: item.contentId }),
};

const renders = [
  mountStatus({ onDismissError: () => store.setCommandError(null) }),
  preview.render,
  mountTransport({ actions, refresh: store.refresh }),
  mountSettings({ actions }),
  mountTracks({ actions }),
  mountOutput({ actions }),
  mountQueue({ actions }),
  mountAnalytics({ actions }),
  mountLibrary({ actions }),
];
mountOpen({ actions });
mountKeyboard({ actions, getPlayer: () => store.state.player });

store.subscribe((state) => {
  for (const render of renders) render(state);
});

// A daemon whose `live` events lack `seekable` (before it was added): the range lags the
// edge by the demuxer's hold-back, so ask a snapshot for it once per source (again at most
// every 2 s until the daemon has a range to tell). The daemon serving this page sends it.
let gapAskedAt = -Infinity;
store.onLiveGapUnknown(async () => {
  if (performance.now() - gapAskedAt < 2000) return;
  gapAskedAt = performance.now();
  try {
    store.learnLiveGap(await api.call('GET', '/v1/player'));
  } catch {
    // The next live event asks again.
  }
});

connectEvents({
  probe: () => api.call('GET', '/v1/player'),
  url: () => api.socketURL('/v1/events'),
  onEvent: (event) => {
    store.applyEvent(event);
    analytics.onEvent(event);
    library.onEvent(event);
  },
  onStatus: (status, info) => store.setConnection(status, info),
});
