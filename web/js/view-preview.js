// The live preview: the composed output frame (GET /v1/snapshot.jpg) about twice a second
// while the tab is visible and something could be on screen, and the current subtitle cue
// under it, math and all.
//
// Frames are fetched as blobs (the request needs the Authorization header, which an
// <img src> cannot send) and shown through object URLs, each revoked once the next frame
// has replaced it so that a long session does not pile up blobs.

import { $, setHidden, setText } from './dom.js';
import { renderCue } from './math.js';

const FRAME_INTERVAL_MS = 500;
const NO_VIDEO_INTERVAL_MS = 2000; // nothing on screen: ask less often
const FAILURE_INTERVAL_MS = 2000;
const PREVIEW_PATH = '/v1/snapshot.jpg?width=640';

const SHOWING = new Set(['playing', 'paused', 'buffering']);

/// Whether a frame can be asked for now, and what to show when not (null: keep the last
/// frame, as after the end of a file). The daemon answers 503 whenever no video is on screen
/// (idle, opening, audio only), and a browser logs every such answer as an error, so the
/// page asks only when the state says there is a picture.
function expectPicture(player) {
  // Protected content (open {"protected": true}): the daemon refuses snapshots (403), and
  // the page says why instead of keeping the last frame of what played before.
  if (player.source?.protected) return { poll: false, placeholder: 'Protected content: no preview' };
  const videoTracks = player.tracks?.video ?? [];
  const anyTracks = videoTracks.length + (player.tracks?.audio?.length ?? 0) > 0;
  const mainShows = Boolean(player.source) && SHOWING.has(player.state) && (videoTracks.length > 0 || !anyTracks);
  const insetShows = Boolean(player.pip) && SHOWING.has(player.pip.state);
  if (mainShows || insetShows) return { poll: true, placeholder: null };
  if (!player.source) return { poll: false, placeholder: player.pip ? 'Starting the inset…' : 'Nothing playing' };
  switch (player.state) {
    case 'opening': return { poll: false, placeholder: 'Opening…' };
    case 'error': return { poll: false, placeholder: 'Playback failed' };
    case 'ended': return { poll: false, placeholder: null };
    default: return { poll: false, placeholder: 'No video (audio only)' };
  }
}

export function mountPreview({ fetchBlob }) {
  const img = $('[data-field="preview"]');
  const placeholder = $('[data-field="preview-placeholder"]');
  const message = $('[data-field="preview-message"]');
  const cue = $('[data-field="cue"]');

  let wanted = false; // the state says a frame may exist
  let hold = null; // {state, timer}: a source change asked for, not yet seen in the state
  let inFlight = null; // the AbortController of the frame request on its way
  let lastState = null;
  let timer = null;
  let running = false;
  let shownURL = null;
  let renderedCue; // undefined: nothing rendered yet

  function showPlaceholder(text) {
    setText(message, text);
    setHidden(placeholder, false);
    setHidden(img, true);
    if (shownURL) {
      URL.revokeObjectURL(shownURL);
      shownURL = null;
      img.removeAttribute('src');
    }
  }

  img.addEventListener('load', () => {
    setHidden(img, false);
    setHidden(placeholder, true);
  });

  function showFrame(blob) {
    const url = URL.createObjectURL(blob);
    const previous = shownURL;
    shownURL = url;
    img.src = url;
    // The old frame stays painted until the new one decodes; its blob is no longer needed.
    if (previous) URL.revokeObjectURL(previous);
  }

  function active() {
    return wanted && !hold && document.visibilityState === 'visible';
  }

  function release() {
    if (!hold) return;
    clearTimeout(hold.timer);
    hold = null;
    start();
  }

  async function tick() {
    timer = null;
    if (!active()) {
      running = false;
      return;
    }
    const started = performance.now();
    let interval = FRAME_INTERVAL_MS;
    try {
      inFlight = new AbortController();
      const blob = await fetchBlob(PREVIEW_PATH, inFlight.signal);
      // The source may have gone while the frame was on its way: drop it then.
      if (active()) showFrame(blob);
    } catch (error) {
      if (error.code === 'aborted') {
        // Cancelled for a source change; the loop goes on once the state has moved.
      } else if (error.code === 'no_video') {
        // Not an error: the player simply has no picture now (a source just changing,
        // say). If the state has moved on meanwhile, its own placeholder stands.
        if (active()) showPlaceholder('No video');
        interval = NO_VIDEO_INTERVAL_MS;
      } else if (error.code !== 'too_many_requests') {
        interval = FAILURE_INTERVAL_MS; // the connection banner tells the story
      }
    } finally {
      inFlight = null;
    }
    if (!active()) {
      running = false;
      return;
    }
    timer = setTimeout(tick, Math.max(0, interval - (performance.now() - started)));
  }

  function start() {
    if (running || !active()) return;
    running = true;
    tick();
  }

  document.addEventListener('visibilitychange', start);

  /// Called as the page asks for an open or a stop: the picture is about to go away, and a
  /// frame asked for in between would be a 503. Polling resumes when the state moves (or
  /// after a few seconds, should the command have been refused without a state change).
  function holdForSourceChange() {
    // A frame request already on its way would reach the daemon after the command and
    // come back 503: cancel it before the command goes out.
    if (inFlight) inFlight.abort();
    if (hold) clearTimeout(hold.timer);
    hold = { state: lastState, timer: setTimeout(release, 3000) };
  }

  function render({ player, connection }) {
    lastState = player.state;
    if (hold && player.state !== hold.state) release();
    const picture = expectPicture(player);
    wanted = connection.status === 'connected' && picture.poll;
    if (!picture.poll && picture.placeholder) showPlaceholder(picture.placeholder);
    if (wanted) start();
    else if (timer !== null) {
      clearTimeout(timer);
      timer = null;
      running = false;
    }

    const text = player.cue ? player.cue.text : null;
    if (text !== renderedCue) {
      renderedCue = text;
      renderCue(cue, text);
    }
  }

  return { render, holdForSourceChange };
}
