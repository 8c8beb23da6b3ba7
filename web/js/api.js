// HTTP to the daemon: the one place that knows about the access token. Requests go out
// without a token until the daemon answers 401; then the page asks the viewer once (the
// token provider shows a form), keeps the answer in sessionStorage for this tab, and
// retries. A `#token=...` in the address on first load is taken and removed from the
// address bar so that it does not linger in history or get shared by copy-paste.

const TOKEN_KEY = 'marquee.token';

export class ApiError extends Error {
  /// status 0 with code "network" when the daemon could not be reached at all.
  constructor(status, code, message) {
    super(message || code);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

let token = null;
let tokenProvider = null;
let pendingToken = null;

export function initToken() {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (match) {
    token = decodeURIComponent(match[1]) || null;
    storeToken(token);
    history.replaceState(history.state, '', location.pathname + location.search);
  } else {
    try {
      token = sessionStorage.getItem(TOKEN_KEY);
    } catch {
      token = null; // storage disabled: the token lives in memory only
    }
  }
}

function storeToken(value) {
  try {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // sessionStorage can be unavailable (privacy modes); memory is enough for this tab.
  }
}

export function getToken() {
  return token;
}

/// `provider(rejected)` returns a promise for a token entered by the viewer; `rejected`
/// is true when a token was already sent and refused.
export function setTokenProvider(provider) {
  tokenProvider = provider;
}

// Concurrent 401s (the preview, the probe and a command at once) share one prompt.
function obtainToken(rejected) {
  if (!pendingToken) {
    pendingToken = Promise.resolve(tokenProvider(rejected)).then((value) => {
      token = value;
      storeToken(value);
    }).finally(() => {
      pendingToken = null;
    });
  }
  return pendingToken;
}

async function send(method, path, body, signal) {
  for (;;) {
    const sentToken = token;
    const headers = {};
    if (sentToken) headers.Authorization = `Bearer ${sentToken}`;
    const init = { method, headers, cache: 'no-store', signal };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      if (error && error.name === 'AbortError') throw new ApiError(0, 'aborted', 'The request was cancelled.');
      throw new ApiError(0, 'network', 'The daemon cannot be reached.');
    }
    if (response.status !== 401 || !tokenProvider) return response;
    // Another request may have obtained a token meanwhile: retry with it at once.
    if (token === sentToken) await obtainToken(Boolean(sentToken));
  }
}

async function errorFrom(response) {
  let code = `http_${response.status}`;
  let message = response.statusText;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch {
    // Not JSON (a proxy's page, say): keep the status.
  }
  return new ApiError(response.status, code, message);
}

/// A JSON request; resolves to the parsed reply (or null when there is none), rejects
/// with an ApiError.
export async function call(method, path, body) {
  const response = await send(method, path, body);
  if (!response.ok) throw await errorFrom(response);
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/// A binary GET (the preview JPEG); resolves to a Blob, rejects with an ApiError (code
/// "aborted" when `signal` cancelled it).
export async function fetchBlob(path, signal) {
  try {
    const response = await send('GET', path, undefined, signal);
    if (!response.ok) throw await errorFrom(response);
    return await response.blob();
  } catch (error) {
    if (error && error.name === 'AbortError') throw new ApiError(0, 'aborted', 'The request was cancelled.');
    throw error;
  }
}

/// The WebSocket URL for a path, with the token as `?token=` (browsers cannot set
/// headers on a WebSocket handshake).
export function socketURL(path) {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (token) url.searchParams.set('token', token);
  return url.href;
}
