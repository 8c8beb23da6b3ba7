/// The OpenAPI 3.1 description of the control API, served at GET /openapi.json.
/// Tests keep its paths and methods in step with `Routes.all`, its error codes with
/// `ErrorCode`, its event types with `PlayerEvent` and its WebSocket names with `Command.names`.
///
/// `json` is the whole document. It is put together from fragments, one file per concern, each
/// fragment being the members of a JSON object without its braces:
/// - OpenAPIDocument.swift: the top level, `info` (the introduction), servers and tags;
/// - OpenAPIDocument+Vocabulary.swift: what is derived from ControlAPI's descriptors: every
///   command route's operation, the settings' schemas and `WebSocketCommand`;
/// - OpenAPIDocument+PlayerPaths.swift: `GET /v1/player`;
/// - OpenAPIDocument+OutputPaths.swift: `/v1/snapshot.jpg`;
/// - OpenAPIDocument+ContentPaths.swift: `/v1/analytics`, `GET /v1/queue` and the analytics schemas;
/// - OpenAPIDocument+LibraryPaths.swift: `/v1/library` and the library's schemas;
/// - OpenAPIDocument+ServicePaths.swift: `/v1/events`, `/healthz`, `/metrics`, `/openapi.json`;
/// - OpenAPIDocument+Schemas.swift: the snapshot and the playback commands' bodies (the
///   settings' members interpolated);
/// - OpenAPIDocument+OutputSchemas.swift: the output stage's bodies and state;
/// - OpenAPIDocument+EventSchemas.swift: events and WebSocket messages;
/// - OpenAPIDocument+Responses.swift: shared parameters, responses and security schemes.
enum OpenAPIDocument {
    static let json = """
    {
     "openapi":"3.1.0",
     "info":{
      "title":"Marquee control API",
      "version":"1.0.0",
      "description":\(introduction)
     },
     "servers":[{"url":"http://127.0.0.1:8080","description":"The default listen address."}],
     "tags":[
      {"name":"player","description":"The player state."},
      {"name":"commands","description":"Commands; each answers with the snapshot."},
      {"name":"output","description":"The output stage: picture-in-picture, the watermark and the snapshot image. Its commands answer with the snapshot too."},
      {"name":"content","description":"Content sessions: the analytics outbox."},
      {"name":"library","description":"The offline library: downloads kept encrypted, played offline within their licences."},
      {"name":"events","description":"Live updates and WebSocket commands."},
      {"name":"service","description":"Health, metrics and this document."}
     ],
     "security":[{"bearerAuth":[]},{}],
     "paths":{
    \(commandPaths),
    \(outputPaths),
    \(contentPaths),
    \(libraryPaths),
    \(servicePaths)
     },
     "components":{
      "schemas":{
    \(schemas),
    \(settingsPatchSchema),
    \(outputSchemas),
    \(contentSchemas),
    \(librarySchemas),
    \(eventSchemas)
      },
    \(sharedComponents)
     }
    }
    """

    /// `info.description`, a JSON string (Markdown).
    static let introduction = #"""
    "The control API of **Marquee**, a headless media player daemon.\n\n## Transport\nHTTP/1.1 with JSON bodies (any `Content-Type` is read as JSON, so `curl -d` works as is), served by libsoup-3. The default listen address is `127.0.0.1:8080`; `marquee serve --listen HOST:PORT` (or `MARQUEE_LISTEN`) changes it, and port 0 picks a free port (the daemon prints `listening on http://HOST:PORT`). Every command answers with the player snapshot as of acceptance. Live updates come from `GET /v1/events`, as a WebSocket or as Server-Sent Events. Request bodies are limited to 1 MiB and need a `Content-Length` (a larger or chunked body is `413 payload_too_large`). A trailing slash on a path is tolerated; `HEAD` is answered like `GET` without a body.\n\n## Access\nLoopback by default, with no authentication. Listening on any other address requires a token (`--token` / `MARQUEE_TOKEN`); the daemon refuses to start on a non-loopback address without one. When a token is set, every `/v1` request and `/metrics` needs `Authorization: Bearer TOKEN` (compared in constant time); a WebSocket client, which often cannot set headers, may pass `?token=TOKEN` on `GET /v1/events` instead. `/healthz`, `/openapi.json` and the dashboard's files never need the token. An optional read-only token (`--viewer-token` / `MARQUEE_VIEWER_TOKEN`, only together with `--token`) may `GET` and follow the event stream; any other method, and every command sent over its WebSocket, is `403 forbidden`. Web pages: a request or WebSocket handshake whose `Origin` is not the server itself is `403 forbidden` unless the origin is named with `--cors-origin https://HOST[:PORT]` (repeatable, exact match); named origins get `Access-Control-Allow-Origin` and `Vary: Origin` on every reply, and their preflight `OPTIONS` (no token needed) is answered `204`. Without a token, a `Host` that is a DNS name other than `localhost` is `403 forbidden` (DNS rebinding). `--media-root DIR` (repeatable) limits local files, after resolving `..` and symlinks, to those folders, and `--allow-scheme` (repeatable: file, http, https, udp, rtsp, rtsps, demo) limits what may play; anything else is `403 forbidden`.\n\n## Limits\nBodies: 1 MiB with a `Content-Length` (`413 payload_too_large`), JSON nested at most 32 levels (`400 invalid_json`), URIs and paths at most 8192 bytes (`400 invalid_argument`). Headers: 32 KiB and 100 fields (`431 headers_too_large`; past 64 KiB libsoup drops the connection). A request's headers and body must arrive within `--request-timeout` seconds (default 30, from the connection's accept or the request's first bytes), else the connection is closed; a kept-alive connection the client closes is closed at once. Event streams: at most `--max-event-clients` (default 256) WebSocket and SSE clients at once, one more is `429 too_many_requests` with `Retry-After`; each client has a bounded queue, and a client that falls too far behind gets a fresh `snapshot` instead of the events it missed. Bytes that are not HTTP at all get libsoup's bare `400` and a closed connection.\n\n## Errors\nEvery error is an HTTP 4xx/5xx status with the body `{\"error\": {\"code\": \"snake_case_code\", \"message\": \"human-readable text\"}}`. Scripts match on `code`: codes are stable, never renamed, only added. Each code maps to exactly one status:\n\n| code | status | meaning |\n|---|---|---|\n| `invalid_json` | 400 | the body (or a WebSocket message) is not valid JSON |\n| `invalid_argument` | 400 | a field is missing, unknown, of the wrong type or out of range; or a query parameter is invalid |\n| `unsupported_uri` | 400 | the URI's scheme or form cannot be played |\n| `unauthorized` | 401 | a token is set and the request did not carry it |\n| `forbidden` | 403 | a local file lies outside every `--media-root` or is unreadable; a scheme not allowed by `--allow-scheme`; a cross-origin request; a command with the viewer token |\n| `not_found` | 404 | the file or resource does not exist |\n| `unknown_track` | 404 | no track has that id |\n| `unknown_variant` | 404 | no HLS variant has that id |\n| `route_not_found` | 404 | no route has that path |\n| `method_not_allowed` | 405 | the path exists but not with that method (the `Allow` header lists the methods) |\n| `timeout` | 408 | `?wait=` did not see the state before `?timeout=` seconds |\n| `too_many_requests` | 429 | more than 64 `?wait=` replies would be held at once, or 4 snapshots are already being encoded |\n| `not_seekable` | 409 | the source cannot be seeked (or not there) |\n| `not_live` | 409 | the source is not live |\n| `no_source` | 409 | the command needs an open source and none is open |\n| `no_pip` | 409 | `PATCH` or `DELETE /v1/pip`, or `POST /v1/pip/swap`, while no picture-in-picture runs |\n| `payload_too_large` | 413 | the body is larger than the server accepts |\n| `headers_too_large` | 431 | the request's headers are over 32 KiB or 100 fields |\n| `unsupported_media_type` | 415 | reserved (bodies are read as JSON whatever their Content-Type) |\n| `media_error` | 422 | the media could not be decoded or demuxed |\n| `network_error` | 422 | the media could not be fetched |\n| `pipeline_error` | 422 | the GStreamer pipeline failed |\n| `subtitle_error` | 422 | an external subtitle file cannot be read or parsed |\n| `missing_plugin` | 422 | a GStreamer plugin the media needs is not installed (the message names it) |\n| `unsupported_format` | 422 | the file is not audio or video GStreamer recognises (random bytes, a PDF, an archive); the message says what typefinding found |\n| `not_in_library` | 404 | an open names a `contentId` alone and the offline library has no copy of it |\n| `download_incomplete` | 409 | an open names a `contentId` alone and its copy is still downloading (or paused, or failed) |\n| `already_in_library` | 409 | `POST /v1/library` of content (`contentId` and `userId`) the library already has; the message names the item |\n| `license_expired` | 403 | the copy's licence is spent; the message names the limit (its date, its plays, its play time, or a clock set back) |\n| `quota_exceeded` | 413 | a download would pass `--library-quota` (an item's `error.code`) |\n| `invalid_state` | 409 | the command does not apply in the current state: pausing a download that is not running, resuming a complete one, `queue.next` at the last item of a queue that does not loop |\n| `session_blocked` | 403 | the session server (`--session-url`) refused this viewing, or stayed unreachable past `--session-grace`: playback stopped (the `blocked` event has the server's code and message) |\n| `key_error` | 422 | the key service refused a key (4xx), or kept failing after its retries |\n| `protected_content` | 403 | `GET /v1/snapshot.jpg` while protected content (`open {\"protected\": true}`) plays |\n| `resolver_error` | 422 | the URL resolver (`--url-resolver`) refused the content, failed, or answered without a `uri`; or `resolve` was asked without a resolver |\n| `internal_error` | 500 | a bug in the daemon |\n| `no_video` | 503 | `GET /v1/snapshot.jpg` while no video is on screen (nothing shown yet, audio only, or after a stop; the last frame stays through seeks and switches) |\n\n## Waiting for a state\nEvery command route accepts `?wait=STATE&timeout=SECONDS`: the reply is held until the player reaches STATE (one of the `state` values of the snapshot), and then carries the snapshot of that moment. If the player fails first the reply is the error (`422 media_error`, `unsupported_format`, `missing_plugin`, `network_error` or `pipeline_error`); if `timeout` seconds (default 10, at most 600) pass first it is `408 timeout`. `timeout` without `wait`, an unknown state or an out-of-range timeout is `400 invalid_argument`. So a script can `POST /v1/player/open?wait=playing` and go on. The wait ends at the pipeline message that completes the work (ASYNC_DONE after a seek).\n\nWithout `wait`, a reply still shows what the command did: `pause` answers `paused`, `play` `playing`, a seek carries its target as `position` while it lands, a track switch shows the new track selected. `position` is never null while a source with a position is loaded.\n\n## Output stage\nWhat is drawn on the output besides the main video: a picture-in-picture inset (`/v1/pip`), a watermark (`/v1/overlays/watermark`) and subtitles (`POST /v1/player/tracks/subtitle`, the `subtitle` field of open, the `subtitleStyle` setting); `GET /v1/snapshot.jpg` returns the output frame as a JPEG. Positions and sizes are fractions of the output frame, never pixels, so a script works the same on a 480p preview and a 4K panel: a `Rect` is `{x, y, width, height}` in fractions of the frame's width (x, width) and height (y, height), from the top-left corner; a text or image size is a fraction of the frame height. Colours are strings `#RRGGBBAA` (hexadecimal red, green, blue and alpha; alpha `FF` is opaque) or `#RRGGBB` (opaque), and are returned as `#RRGGBBAA` in upper case. The state is in the snapshot (`pip`, `watermark`, `subtitleStyle`, `cue`) and changes arrive as events (`pip`, `watermark`, `settings`, `cue`).\n"
    """#
}
