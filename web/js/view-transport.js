// Transport: play, pause, stop, the seek bar with position and duration, buffering, the
// live window with "go live", and facts about the source.

import { $, setAttr, setDisabled, setHidden, setText } from './dom.js';
import { formatSeconds, formatTime } from './format.js';

// After a release the bar holds the target this long, unless the player reports a
// position near it sooner: position events already in flight would otherwise snap the
// thumb back to where it was for a moment.
const HOLD_MS = 1500;
// How close to the end of the seekable range counts as live.
const EDGE_TOLERANCE_S = 1.5;

/// The range the bar spans: the seekable window for live sources (timeshift, live HLS),
/// else 0…duration; null when the source cannot seek.
export function seekRange(player) {
  if (player.source?.live) {
    const s = player.seekable;
    return s && s.end > s.start ? { min: s.start, max: s.end } : null;
  }
  if (Number.isFinite(player.duration) && player.duration > 0) return { min: 0, max: player.duration };
  return null;
}

export function mountTransport({ actions, refresh }) {
  const seek = $('[data-action="seek"]');
  const seekTarget = $('[data-field="seek-target"]');
  const position = $('[data-field="position"]');
  const duration = $('[data-field="duration"]');
  const liveButton = $('[data-action="live"]');
  const liveInfo = $('[data-field="live-info"]');
  const liveGroup = liveButton.closest('.live-group');
  const liveBadge = $('[data-field="live-badge"]');
  const buffering = $('[data-field="buffering"]');
  const bufferBar = $('[data-field="buffer-bar"]');
  const bufferFill = $('[data-field="buffer-fill"]');
  const source = $('[data-field="source"]');
  const offlineRow = $('[data-field="offline-row"]');
  const abRow = $('[data-field="ab-row"]');
  const abLoop = $('[data-field="ab-loop"]');
  const reconnectingRow = $('[data-field="reconnecting-row"]');
  const reconnecting = $('[data-field="reconnecting"]');
  const play = $('[data-action="play"]');
  const pause = $('[data-action="pause"]');

  play.addEventListener('click', () => actions.play());
  pause.addEventListener('click', () => actions.pause());
  $('[data-action="stop"]').addEventListener('click', () => actions.stop());
  liveButton.addEventListener('click', () => actions.live());

  // The recorder's notice expires on its own: re-render when it is due.
  let expiry = null;

  let dragging = false;
  let hold = null; // {target, until}

  // While dragging, the bar and a bubble show where the drag is; the player is told on
  // release (`change`), so a drag across the file is one seek, not hundreds.
  seek.addEventListener('input', () => {
    dragging = true;
    setHidden(seekTarget, false);
    setText(seekTarget, formatTime(Number(seek.value)));
    const fraction = (Number(seek.value) - Number(seek.min)) / ((Number(seek.max) - Number(seek.min)) || 1);
    seekTarget.style.setProperty('--at', String(Math.min(1, Math.max(0, fraction))));
    seek.style.setProperty('--fill', `${Math.min(100, Math.max(0, fraction * 100))}%`);
  });
  seek.addEventListener('change', () => {
    dragging = false;
    setHidden(seekTarget, true);
    const target = Number(seek.value);
    hold = { target, until: Date.now() + HOLD_MS };
    actions.seek(target);
  });
  // A pointer released outside the window may never fire `change`; stop holding the thumb.
  seek.addEventListener('blur', () => {
    dragging = false;
    setHidden(seekTarget, true);
  });

  return function render({ player, reconnecting: notice }) {
    const pos = player.position;
    setText(position, formatTime(pos));
    setAttr(position, 'data-seconds', Number.isFinite(pos) ? pos.toFixed(3) : null);

    const isLive = Boolean(player.source?.live);
    const dur = player.duration;
    setText(duration, Number.isFinite(dur) ? formatTime(dur) : (isLive ? 'live' : '–:––'));
    setAttr(duration, 'data-seconds', Number.isFinite(dur) ? dur.toFixed(3) : null);

    const range = seekRange(player);
    setDisabled(seek, !range);
    if (range) {
      setAttr(seek, 'min', range.min.toFixed(2));
      setAttr(seek, 'max', range.max.toFixed(2));
    } else {
      setAttr(seek, 'min', '0');
      setAttr(seek, 'max', '0');
    }
    if (hold && (Date.now() > hold.until || (Number.isFinite(pos) && Math.abs(pos - hold.target) < 1))) hold = null;
    if (!dragging && !hold) {
      const value = Number.isFinite(pos) ? String(pos) : '0';
      if (seek.value !== value) seek.value = value;
    }
    const fraction = range && Number.isFinite(pos) ? (Number(seek.value) - range.min) / (range.max - range.min || 1) : 0;
    seek.style.setProperty('--fill', `${Math.min(100, Math.max(0, fraction * 100))}%`);
    seek.classList.toggle('at-live', isLive && !range);
    setAttr(seek, 'aria-valuetext', range ? `${formatTime(Number(seek.value))} of ${isLive ? 'the live window' : formatTime(dur)}` : 'not seekable');

    // The active transport button is highlighted; both stay enabled, as the daemon
    // answers either in any state.
    const playing = player.state === 'playing' || player.state === 'buffering';
    play.classList.toggle('active', playing);
    pause.classList.toggle('active', player.state === 'paused');

    // "Go live" only means something for a live source; elsewhere it would be a dead button.
    setHidden(liveGroup, !isLive);
    const live = player.live;
    // "At the edge" means as close as the player can get: the end of the seekable range,
    // which for timeshift is a few seconds short of the edge proper. `behind` is still shown
    // as the daemon reports it, as the delay to the edge.
    const playableEnd = player.seekable ? player.seekable.end : (live ? live.edge : null);
    const atEdge = isLive && (!live || !Number.isFinite(pos) || playableEnd - pos < EDGE_TOLERANCE_S);
    liveButton.classList.toggle('at-edge', atEdge);
    setHidden(liveBadge, !isLive);
    liveBadge.classList.toggle('behind', isLive && !atEdge);
    setText(liveBadge, atEdge || !live ? 'LIVE' : `−${formatSeconds(live.behind)}`);
    if (!isLive) setText(liveInfo, '');
    else if (!live) setText(liveInfo, 'At the live edge');
    else {
      const where = atEdge ? `At the live edge (${formatSeconds(live.behind)} delay)` : `${formatSeconds(live.behind)} behind live`;
      setText(liveInfo, `${where} · ${formatTime(live.window)} window`);
    }
    setAttr(liveInfo, 'data-behind', live ? live.behind.toFixed(1) : null);

    // Buffering levels below 100 are normal while playing adaptive streams; only the
    // state says playback is actually held up.
    const isBuffering = player.state === 'buffering' || (player.state === 'opening' && player.buffering < 100);
    setHidden(buffering, !isBuffering);
    setText(buffering, `Buffering ${player.buffering}%`);
    setHidden(bufferBar, !isBuffering);
    bufferFill.style.width = `${player.buffering}%`;

    const src = player.source;
    setText(source, src ? src.uri : 'Nothing loaded');
    setAttr(source, 'title', src ? `${src.kind}${src.live ? ', live' : ''}` : null);
    // A library copy plays; `uri` stays the origin's (API-2 §1).
    setHidden(offlineRow, !src?.offline);

    setHidden(abRow, !player.abLoop);
    if (player.abLoop) setText(abLoop, `A ${formatTime(player.abLoop.a)} → B ${formatTime(player.abLoop.b)}`);

    const noticeActive = Boolean(notice) && Date.now() < notice.until;
    setHidden(reconnectingRow, !noticeActive);
    if (noticeActive) {
      setText(reconnecting, `Lost (${notice.reason}); reconnecting, attempt ${notice.attempt} in ${formatSeconds(notice.delay)}`);
      clearTimeout(expiry);
      expiry = setTimeout(refresh, notice.until - Date.now() + 50);
    }
  };
}
