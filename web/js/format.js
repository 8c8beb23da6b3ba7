// Turning the daemon's numbers and codes into text for people.

/// 83.4 -> "1:23", 3723 -> "1:02:03"; null -> a dash placeholder.
export function formatTime(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–:––';
  const sign = seconds < 0 ? '-' : '';
  const total = Math.floor(Math.abs(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${sign}${h}:${String(m).padStart(2, '0')}:${s}` : `${sign}${m}:${s}`;
}

/// Seconds with one decimal, for short spans like "3.2 s".
export function formatSeconds(seconds) {
  return `${(Math.round(seconds * 10) / 10).toFixed(1)} s`;
}

export function formatBitrate(bps) {
  if (!Number.isFinite(bps)) return '';
  if (bps >= 1e6) return `${(bps / 1e6).toFixed(bps >= 1e7 ? 0 : 1)} Mb/s`;
  return `${Math.round(bps / 1e3)} kb/s`;
}

export function formatPercent(fraction) {
  return `${Math.round(fraction * 100)}%`;
}

/// Bytes as megabytes (decimal, as disks are sold): 1_310_720 -> "1.31". Two decimals
/// below 10 MB, one below 100, none above, so a growing download reads steadily.
export function formatMB(bytes) {
  const mb = (Number.isFinite(bytes) ? bytes : 0) / 1e6;
  return mb.toFixed(mb < 10 ? 2 : (mb < 100 ? 1 : 0));
}

/// Bytes for people: "512 kB", "1.31 MB", "4.2 GB".
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return '–';
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(bytes >= 1e10 ? 0 : 1)} GB`;
  if (bytes >= 1e6) return `${formatMB(bytes)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} kB`;
  return `${bytes} B`;
}

export function variantLabel(v) {
  const size = v.height ? `${v.height}p` : (v.width ? `${v.width}w` : v.id);
  return `${size} · ${formatBitrate(v.bandwidth)}`;
}

export function trackLabel(t, index) {
  const parts = [];
  parts.push(t.title || (t.language ? t.language.toUpperCase() : `Track ${index + 1}`));
  if (t.title && t.language) parts.push(t.language);
  if (t.codec) parts.push(t.codec);
  return parts.join(' · ');
}

const corners = {
  'top-left': 'top left', top: 'top', 'top-right': 'top right', left: 'left', center: 'centre',
  right: 'right', 'bottom-left': 'bottom left', bottom: 'bottom', 'bottom-right': 'bottom right',
  random: 'random place',
};
export function positionLabel(position) {
  return corners[position] ?? position;
}

// Stable error codes (docs/API.md, Errors) to sentences a viewer can act on. The daemon's
// own message is shown beside them as the detail.
const errorTexts = {
  invalid_json: 'The daemon could not read the request.',
  invalid_argument: 'A value was not accepted.',
  unsupported_uri: 'Marquee cannot play this kind of address.',
  unauthorized: 'The access token is missing or wrong.',
  forbidden: 'Not allowed: the file is outside the permitted media folders, or unreadable.',
  not_found: 'No such file.',
  route_not_found: 'The daemon does not know this request (is it an older version?).',
  unknown_track: 'That track does not exist (any more).',
  unknown_variant: 'That quality level does not exist.',
  method_not_allowed: 'The daemon does not accept this request.',
  timeout: 'The player did not get there in time.',
  too_many_requests: 'The daemon is busy. Try again in a moment.',
  no_source: 'Nothing is loaded: open a source first.',
  not_seekable: 'This source cannot be seeked (a live source without timeshift).',
  not_live: 'This source is not live.',
  no_pip: 'No picture-in-picture is running.',
  payload_too_large: 'The request is too large.',
  media_error: 'The media cannot be played: it is damaged, truncated or in a format without a decoder.',
  network_error: 'The network source failed.',
  pipeline_error: 'The media pipeline failed (a missing GStreamer element or a refused state change).',
  subtitle_error: 'The subtitle file cannot be read or parsed.',
  internal_error: 'The daemon hit an internal error. Please report it.',
  no_video: 'No video is on screen.',
  not_in_library: 'There is no downloaded copy of this content.',
  download_incomplete: 'The copy is still downloading: it plays once it is complete.',
  license_expired: 'The licence of this copy is spent.',
  already_in_library: 'This content is already in the library.',
  quota_exceeded: 'The library has no room for this download (its quota is reached).',
  session_blocked: 'Playback was stopped by the session server.',
  invalid_state: 'That does not apply right now (it changed meanwhile): look again and retry.',
  network: 'The daemon cannot be reached.',
};

export function errorText(code) {
  return errorTexts[code] ?? `Error: ${code}`;
}
