/// The OpenAPI 3.1 description of the control API, served at GET /openapi.json.
/// A test keeps its paths and methods in step with `Routes.all`.
enum OpenAPIDocument {
    static let json = #"""
    {
     "openapi":"3.1.0",
     "info":{
      "title":"Marquee control API",
      "version":"1.0.0",
      "description":"The control API of **Marquee**, a headless media player daemon.\n\n## Transport\nHTTP/1.1 with JSON bodies (any `Content-Type` is read as JSON, so `curl -d` works as is), served by libsoup-3. The default listen address is `127.0.0.1:8080`; `marquee serve --listen HOST:PORT` (or `MARQUEE_LISTEN`) changes it, and port 0 picks a free port (the daemon prints `listening on http://HOST:PORT`). Every command answers with the player snapshot as of acceptance. Live updates come from `GET /v1/events`, as a WebSocket or as Server-Sent Events. Request bodies are limited to 1 MiB and need a `Content-Length` (a larger or chunked body is `413 payload_too_large`). A trailing slash on a path is tolerated; `HEAD` is answered like `GET` without a body.\n\n## Access\nLoopback by default, with no authentication. Listening on any other address requires a token (`--token` / `MARQUEE_TOKEN`); the daemon refuses to start on a non-loopback address without one. When a token is set, every `/v1` request needs `Authorization: Bearer TOKEN`; a WebSocket client, which often cannot set headers, may pass `?token=TOKEN` on `GET /v1/events` instead. `/healthz` and `/openapi.json` never need the token; `/metrics` does. Web pages cannot drive the player: a request or WebSocket handshake whose `Origin` is not the server itself is `403 forbidden`, and so, without a token, is a `Host` that is a DNS name other than `localhost`.\n\n## Errors\nEvery error is an HTTP 4xx/5xx status with the body `{\"error\": {\"code\": \"snake_case_code\", \"message\": \"human-readable text\"}}`. Scripts match on `code`: codes are stable, never renamed, only added. Each code maps to exactly one status:\n\n| code | status | meaning |\n|---|---|---|\n| `invalid_json` | 400 | the body (or a WebSocket message) is not valid JSON |\n| `invalid_argument` | 400 | a field is missing, unknown, of the wrong type or out of range; or a query parameter is invalid |\n| `unsupported_uri` | 400 | the URI's scheme or form cannot be played |\n| `unauthorized` | 401 | a token is set and the request did not carry it |\n| `forbidden` | 403 | a local file lies outside every `--media-root` or is unreadable; a cross-origin request |\n| `not_found` | 404 | the file or resource does not exist |\n| `unknown_track` | 404 | no track has that id |\n| `unknown_variant` | 404 | no HLS variant has that id |\n| `route_not_found` | 404 | no route has that path |\n| `method_not_allowed` | 405 | the path exists but not with that method (the `Allow` header lists the methods) |\n| `timeout` | 408 | `?wait=` did not see the state before `?timeout=` seconds |\n| `too_many_requests` | 429 | more than 64 `?wait=` replies would be held at once |\n| `not_seekable` | 409 | the source cannot be seeked (or not there) |\n| `not_live` | 409 | the source is not live |\n| `no_source` | 409 | the command needs an open source and none is open |\n| `payload_too_large` | 413 | the body is larger than the server accepts |\n| `unsupported_media_type` | 415 | reserved (bodies are read as JSON whatever their Content-Type) |\n| `media_error` | 422 | the media could not be decoded or demuxed |\n| `network_error` | 422 | the media could not be fetched |\n| `pipeline_error` | 422 | the GStreamer pipeline failed |\n| `internal_error` | 500 | a bug in the daemon |\n\n## Waiting for a state\nEvery command route accepts `?wait=STATE&timeout=SECONDS`: the reply is held until the player reaches STATE (one of the `state` values of the snapshot), and then carries the snapshot of that moment. If the player fails first the reply is the error (`422 media_error`, `network_error` or `pipeline_error`); if `timeout` seconds (default 10, at most 600) pass first it is `408 timeout`. `timeout` without `wait`, an unknown state or an out-of-range timeout is `400 invalid_argument`. So a script can `POST /v1/player/open?wait=playing` and go on.\n"
     },
     "servers":[{"url":"http://127.0.0.1:8080","description":"The default listen address."}],
     "tags":[
      {"name":"player","description":"The player state."},
      {"name":"commands","description":"Commands; each answers with the snapshot."},
      {"name":"events","description":"Live updates and WebSocket commands."},
      {"name":"service","description":"Health, metrics and this document."}
     ],
     "security":[{"bearerAuth":[]},{}],
     "paths":{
      "/v1/player":{
       "get":{
        "operationId":"getPlayer",
        "summary":"The player snapshot",
        "tags":["player"],
        "description":"The whole public player state. Every key is always present; absent values are null.",
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "patch":{
        "operationId":"setPlayerSettings",
        "summary":"Change settings",
        "description":"Changes any subset of rate, volume, muted, audioDelay and repeat (WebSocket command `set`). Out-of-range values and unknown fields are `invalid_argument`.",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/SettingsPatch"},"examples":{"volume":{"value":{"volume":0.5,"muted":false}},"rate":{"value":{"rate":1.5}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/open":{
       "post":{
        "operationId":"openSource",
        "summary":"Open a source",
        "description":"Loads a file (`file://` or a path), an HLS stream (`http(s)://...m3u8`) or a live source, replacing the current one (WebSocket command `open`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/OpenRequest"},"examples":{"file":{"value":{"uri":"file:///media/movie.mkv","start":30,"autoplay":true}},"hls":{"value":{"uri":"https://example.com/live/index.m3u8","timeshift":{"window":600}}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"403":{"$ref":"#/components/responses/Forbidden"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/play":{
       "post":{
        "operationId":"play",
        "summary":"Play",
        "description":"Starts or resumes playback (WebSocket command `play`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/pause":{
       "post":{
        "operationId":"pause",
        "summary":"Pause",
        "description":"Pauses playback (WebSocket command `pause`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/stop":{
       "post":{
        "operationId":"stop",
        "summary":"Stop",
        "description":"Ends the session and unloads the source: state `idle`, `source` null (WebSocket command `stop`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/seek":{
       "post":{
        "operationId":"seek",
        "summary":"Seek",
        "description":"Seeks to an absolute `position` or by a relative `offset` (exactly one), snapping to a keyframe unless `exact` is true (WebSocket command `seek`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/SeekRequest"},"examples":{"position":{"value":{"position":12.5}},"offset":{"value":{"offset":-10,"exact":true}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/live":{
       "post":{
        "operationId":"goLive",
        "summary":"Jump to the live edge",
        "description":"Jumps to the live edge of a live or timeshifted source (WebSocket command `live`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/variant":{
       "post":{
        "operationId":"selectVariant",
        "summary":"Choose the HLS variant",
        "description":"Pins an HLS variant by id, or returns to adaptive selection with `auto` (WebSocket command `variant`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/VariantRequest"},"examples":{"pin":{"value":{"id":"v2"}},"auto":{"value":{"id":"auto"}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/tracks/audio":{
       "post":{
        "operationId":"selectAudioTrack",
        "summary":"Choose the audio track",
        "description":"Selects an audio track or HLS audio rendition (WebSocket command `audio`).",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/TrackRequest"},"examples":{"track":{"value":{"id":"a1"}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/tracks/subtitle":{
       "post":{
        "operationId":"selectSubtitleTrack",
        "summary":"Choose the subtitle track",
        "description":"Selects a subtitle track, or turns subtitles off with `{\"id\": null}` (WebSocket command `subtitle`). The `id` key is required, so an empty body is an error.",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/SubtitleRequest"},"examples":{"track":{"value":{"id":"s1"}},"off":{"value":{"id":null}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/events":{
       "get":{
        "operationId":"streamEvents",
        "summary":"Event stream (WebSocket or Server-Sent Events)",
        "tags":["events"],
        "description":"The player's event stream, in one of two forms:\n\n- **WebSocket** when the request asks to upgrade (`Connection: Upgrade`, `Upgrade: websocket`): the server answers `101 Switching Protocols` and sends each event as one JSON text frame. A client that cannot set headers passes the token as `?token=TOKEN`.\n- **Server-Sent Events** otherwise; send `Accept: text/event-stream` (so `curl -N` can follow the player): `200` with `Content-Type: text/event-stream`, opening with a comment line, then each event as one SSE message `data: <Event JSON>` followed by a blank line.\n\nData-flow guarantees, on both forms:\n\n1. The first event on every connection is `{\"seq\": 1, \"type\": \"snapshot\", \"data\": <PlayerSnapshot>}`.\n2. `seq` starts at 1 and increases by exactly one per event on that connection (numbering is per connection, not global).\n3. Events reach a client in the order the player emitted them.\n4. `position` is throttled to at most 4 per second while playing.\n5. A slow client never stalls the player: while its socket is backed up, events wait in a per-client queue bounded at 256 events. Latest-value events (`position`, `buffering`, `settings`, `tracks`) replace an older queued event of the same type. On overflow the events queued for it are dropped and, once it catches up, it is sent a fresh `snapshot` (with the next `seq`), then the stream continues; a client that sees a `snapshot` after the first should replace its whole state with it.\n\nEvent types: `snapshot`, `state`, `position`, `buffering`, `tracks`, `seek`, `settings`, `source`, `error`, `eos` (see the `Event` schema for each `data`).\n\nOver the WebSocket a client may also send commands, one JSON text frame each: `{\"id\": 7, \"command\": \"seek\", \"args\": {\"position\": 12.5}}` (schema `WebSocketCommand`). `args` is the body of the matching HTTP route. Each gets one reply frame, `{\"id\": 7, \"ok\": true}` or `{\"id\": 7, \"ok\": false, \"error\": {\"code\": \"...\", \"message\": \"...\"}}` (schema `WebSocketReply`), with the same error codes as HTTP. Command names: `open`, `play`, `pause`, `stop`, `seek`, `live`, `set` (the settings of `PATCH /v1/player`), `variant`, `audio`, `subtitle`. `ok: true` means the player accepted the command. Replies are not events: they carry no `seq` and are never dropped; the effects of a command arrive as events.",
        "security":[{"bearerAuth":[]},{"queryToken":[]},{}],
        "parameters":[{"name":"Accept","in":"header","schema":{"type":"string","examples":["text/event-stream"]},"description":"`text/event-stream` for Server-Sent Events (any GET that does not upgrade gets the SSE stream)."},{"name":"Upgrade","in":"header","schema":{"type":"string","enum":["websocket"]},"description":"`websocket` (with `Connection: Upgrade` and the WebSocket handshake headers) selects the WebSocket."},{"name":"token","in":"query","schema":{"type":"string"},"description":"The token, for WebSocket clients that cannot send `Authorization`."}],
        "responses":{"101":{"description":"Switching Protocols: a WebSocket. The server sends `Event` text frames; the client may send `WebSocketCommand` frames and gets a `WebSocketReply` for each.","content":{"application/json":{"schema":{"oneOf":[{"$ref":"#/components/schemas/Event"},{"$ref":"#/components/schemas/WebSocketReply"}]}}}},"200":{"description":"A Server-Sent Events stream of `Event`s, open until the client goes away.","content":{"text/event-stream":{"schema":{"type":"string","description":"A stream of SSE messages; the `data` of each is one `Event` as JSON."},"example":"data: {\"data\":{\"previous\":\"paused\",\"state\":\"playing\"},\"seq\":2,\"type\":\"state\"}\n\n"}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/healthz":{
       "get":{
        "operationId":"getHealth",
        "summary":"Liveness",
        "tags":["service"],
        "security":[{}],
        "description":"Answers while the daemon runs. Needs no token.",
        "responses":{"200":{"description":"The daemon is up.","content":{"application/json":{"schema":{"type":"object","required":["status","version","gstreamer"],"properties":{"status":{"type":"string","const":"ok"},"version":{"type":"string","description":"Marquee's version.","examples":["1.0.0"]},"gstreamer":{"type":"string","description":"The GStreamer runtime version.","examples":["1.22.0"]}}}}}}}
       }
      },
      "/metrics":{
       "get":{
        "operationId":"getMetrics",
        "summary":"Prometheus metrics",
        "tags":["service"],
        "description":"Metrics in the Prometheus text exposition format (`Content-Type: text/plain; version=0.0.4`). Needs the token when one is set.",
        "responses":{"200":{"description":"The metrics.","content":{"text/plain":{"schema":{"type":"string"}}}},"401":{"$ref":"#/components/responses/Unauthorized"}}
       }
      },
      "/openapi.json":{
       "get":{
        "operationId":"getOpenAPI",
        "summary":"This document",
        "tags":["service"],
        "security":[{}],
        "description":"The OpenAPI 3.1 description of the control API. Needs no token.",
        "responses":{"200":{"description":"This document.","content":{"application/json":{"schema":{"type":"object"}}}}}
       }
      }
     },
     "components":{
      "schemas":{
       "PlaybackState":{"type":"string","enum":["idle","opening","buffering","paused","playing","ended","error"],"description":"The public player state."},
       "RepeatMode":{"type":"string","enum":["none","one","all"]},
       "SourceKind":{"type":"string","enum":["file","hls","live"]},
       "ErrorCode":{
        "type":"string",
        "enum":["invalid_json","invalid_argument","unsupported_uri","unauthorized","forbidden","not_found","unknown_track","unknown_variant","route_not_found","method_not_allowed","timeout","too_many_requests","not_seekable","not_live","no_source","payload_too_large","unsupported_media_type","media_error","network_error","pipeline_error","internal_error"],
        "description":"Stable error codes; each maps to exactly one HTTP status (the table under Errors in the API description)."
       },
       "Error":{
        "type":"object",
        "required":["code","message"],
        "additionalProperties":false,
        "properties":{"code":{"$ref":"#/components/schemas/ErrorCode"},"message":{"type":"string","description":"For people; do not match on it."}}
       },
       "ErrorReply":{"type":"object","required":["error"],"additionalProperties":false,"description":"The body of every error reply.","properties":{"error":{"$ref":"#/components/schemas/Error"}}},
       "SourceInfo":{
        "type":"object",
        "required":["uri","kind","live"],
        "properties":{"uri":{"type":"string"},"kind":{"$ref":"#/components/schemas/SourceKind"},"live":{"type":"boolean","description":"True for sources with no end: kind live, and HLS whose media playlists have no EXT-X-ENDLIST."},"contentId":{"type":"string","description":"Present when the client gave one on open."}}
       },
       "Track":{
        "type":"object",
        "required":["id","selected"],
        "properties":{"id":{"type":"string"},"language":{"type":"string","examples":["en"]},"title":{"type":"string"},"codec":{"type":"string"},"selected":{"type":"boolean"}}
       },
       "Tracks":{
        "type":"object",
        "required":["audio","video","subtitle"],
        "properties":{"audio":{"type":"array","items":{"$ref":"#/components/schemas/Track"}},"video":{"type":"array","items":{"$ref":"#/components/schemas/Track"}},"subtitle":{"type":"array","items":{"$ref":"#/components/schemas/Track"}}}
       },
       "Variant":{
        "type":"object",
        "required":["id","bandwidth"],
        "description":"An HLS variant stream, from Marquee's own parse of the master playlist; `variants` lists them sorted by bandwidth with ids v1 (lowest) .. vN.",
        "properties":{"id":{"type":"string"},"bandwidth":{"type":"integer","minimum":0,"description":"BANDWIDTH, bits per second."},"averageBandwidth":{"type":"integer","minimum":0,"description":"AVERAGE-BANDWIDTH, bits per second."},"width":{"type":"integer","description":"Pixels."},"height":{"type":"integer","description":"Pixels."},"frameRate":{"type":"number"},"codecs":{"type":"string"},"audio":{"type":"string","description":"The EXT-X-MEDIA audio group."}}
       },
       "VariantState":{
        "type":"object",
        "required":["mode","selected","current"],
        "properties":{"mode":{"type":"string","enum":["auto","manual"]},"selected":{"type":["string","null"],"description":"The pinned variant id in manual mode."},"current":{"type":["string","null"],"description":"The variant being played now."}}
       },
       "TimeRange":{"type":"object","required":["start","end"],"properties":{"start":{"type":"number","description":"Seconds."},"end":{"type":"number","description":"Seconds."}}},
       "LiveInfo":{
        "type":"object",
        "required":["edge","behind","window"],
        "properties":{"edge":{"type":"number","description":"The newest recorded moment, in the timeline of position (for timeshift: seconds since recording started)."},"behind":{"type":"number","minimum":0,"description":"How many seconds the output is behind the live edge."},"window":{"type":"number","description":"Seconds that can be gone back: edge minus seekable.start."}}
       },
       "ABLoop":{"type":"object","required":["a","b"],"properties":{"a":{"type":"number","description":"Seconds."},"b":{"type":"number","description":"Seconds."}}},
       "Rect":{"type":"object","required":["x","y","width","height"],"properties":{"x":{"type":"integer"},"y":{"type":"integer"},"width":{"type":"integer"},"height":{"type":"integer"}}},
       "PipInfo":{"type":"object","required":["uri","state","rect"],"properties":{"uri":{"type":"string"},"state":{"type":"string"},"rect":{"$ref":"#/components/schemas/Rect"}}},
       "PlayerSnapshot":{
        "type":"object",
        "description":"The whole public player state. Every key is always present; absent values are `null`.",
        "required":["state","source","position","duration","rate","volume","muted","audioDelay","buffering","seekable","live","tracks","variants","variant","repeat","abLoop","pip","error"],
        "properties":{"state":{"$ref":"#/components/schemas/PlaybackState"},"source":{"oneOf":[{"$ref":"#/components/schemas/SourceInfo"},{"type":"null"}]},"position":{"type":["number","null"],"description":"Seconds in the media timeline (for live timeshift, in the recorded window)."},"duration":{"type":["number","null"],"description":"Seconds; null when unknown or live."},"rate":{"type":"number","default":1},"volume":{"type":"number","default":1,"description":"1 is unchanged."},"muted":{"type":"boolean","default":false},"audioDelay":{"type":"number","default":0,"description":"Seconds the audio is delayed against the video (negative: audio earlier)."},"buffering":{"type":"integer","minimum":0,"maximum":100,"default":100,"description":"Percent."},"seekable":{"oneOf":[{"$ref":"#/components/schemas/TimeRange"},{"type":"null"}]},"live":{"oneOf":[{"$ref":"#/components/schemas/LiveInfo"},{"type":"null"}]},"tracks":{"$ref":"#/components/schemas/Tracks"},"variants":{"type":"array","items":{"$ref":"#/components/schemas/Variant"}},"variant":{"$ref":"#/components/schemas/VariantState"},"repeat":{"$ref":"#/components/schemas/RepeatMode"},"abLoop":{"oneOf":[{"$ref":"#/components/schemas/ABLoop"},{"type":"null"}]},"pip":{"oneOf":[{"$ref":"#/components/schemas/PipInfo"},{"type":"null"}]},"error":{"oneOf":[{"$ref":"#/components/schemas/Error"},{"type":"null"}]}}
       },
       "OpenRequest":{
        "type":"object",
        "required":["uri"],
        "properties":{"uri":{"type":"string","minLength":1,"description":"A `file://` URI or a path, an HLS URL (`http(s)://`), a live source (`udp://HOST:PORT`, multicast too; `rtsp://`) or `demo://`. Must not be blank."},"start":{"type":"number","minimum":0,"description":"Seconds to start at."},"autoplay":{"type":"boolean"},"headers":{"type":"object","additionalProperties":{"type":"string"},"description":"Request headers sent on every request of an http(s) session (master, playlists, segments, keys), through the daemon's loopback proxy. No hop-by-hop headers, no line breaks."},"referer":{"type":"string","description":"Sent as Referer on every request."},"userAgent":{"type":"string","description":"Sent as User-Agent on every request."},"keyHeaders":{"type":"object","additionalProperties":{"type":"string"},"description":"Extra headers for EXT-X-KEY requests only (for example a key server's bearer token)."},"timeshift":{"type":"object","required":["window"],"additionalProperties":false,"description":"Record the live source (udp://, rtsp://, live HLS, demo://) into a ring of segments under the data directory and play from it: pause, seek back within the window, return to the live edge. 400 for files.","properties":{"window":{"type":"number","minimum":1,"maximum":86400,"description":"Seconds kept for going back."}}},"subtitle":{"type":"string","description":"Not supported yet: refused with 400."},"contentId":{"type":"string"},"userId":{"type":"string","description":"Not supported yet: refused with 400."},"kind":{"$ref":"#/components/schemas/SourceKind","description":"A hint for URIs whose kind cannot be told from their text."}}
       },
       "SeekRequest":{
        "type":"object",
        "additionalProperties":false,
        "description":"Exactly one of `position` (absolute) or `offset` (relative). Seeks snap to a keyframe unless `exact` is true.",
        "properties":{"position":{"type":"number","minimum":0,"description":"Absolute position, seconds."},"offset":{"type":"number","description":"Relative to the current position, seconds (negative: back)."},"exact":{"type":"boolean","default":false}},
        "oneOf":[{"required":["position"],"not":{"required":["offset"]}},{"required":["offset"],"not":{"required":["position"]}}]
       },
       "SettingsPatch":{
        "type":"object",
        "additionalProperties":false,
        "description":"Any subset of the settings; unknown fields are `invalid_argument`.",
        "properties":{"rate":{"type":"number","minimum":0.1,"maximum":10},"volume":{"type":"number","minimum":0,"maximum":10,"description":"1 is unchanged."},"muted":{"type":"boolean"},"audioDelay":{"type":"number","minimum":-60,"maximum":60,"description":"Seconds the audio is delayed against the video (negative: audio earlier)."},"repeat":{"$ref":"#/components/schemas/RepeatMode"}}
       },
       "VariantRequest":{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"A variant id from `variants`, or `auto` for adaptive."}}},
       "TrackRequest":{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"An audio track id from `tracks.audio`."}}},
       "SubtitleRequest":{"type":"object","required":["id"],"properties":{"id":{"type":["string","null"],"description":"A subtitle track id from `tracks.subtitle`, or null to turn subtitles off. The key is required."}}},
       "StateChange":{"type":"object","required":["state","previous"],"properties":{"state":{"$ref":"#/components/schemas/PlaybackState"},"previous":{"$ref":"#/components/schemas/PlaybackState"}}},
       "PositionUpdate":{"type":"object","required":["position","duration"],"properties":{"position":{"type":"number"},"duration":{"type":["number","null"]}}},
       "BufferingUpdate":{"type":"object","required":["percent"],"properties":{"percent":{"type":"integer","minimum":0,"maximum":100}}},
       "ReconnectingUpdate":{"type":"object","required":["attempt","delay","reason"],"description":"The timeshift recorder lost its source (an error, or no data for a while) and tries again; what is recorded stays playable.","properties":{"attempt":{"type":"integer","minimum":1},"delay":{"type":"number","description":"Seconds until the attempt (1, 2, 4 … 30)."},"reason":{"type":"string"}}},
       "SeekUpdate":{"type":"object","required":["position","exact"],"properties":{"position":{"type":"number","description":"Where the seek was aimed, seconds."},"exact":{"type":"boolean"}}},
       "SettingsUpdate":{
        "type":"object",
        "required":["rate","volume","muted","audioDelay","repeat"],
        "properties":{"rate":{"type":"number"},"volume":{"type":"number"},"muted":{"type":"boolean"},"audioDelay":{"type":"number"},"repeat":{"$ref":"#/components/schemas/RepeatMode"}}
       },
       "Event":{
        "type":"object",
        "required":["seq","type","data"],
        "description":"One event. `data` by `type`: `snapshot`: PlayerSnapshot; `state`: StateChange; `position`: PositionUpdate; `buffering`: BufferingUpdate; `tracks`: Tracks; `seek`: SeekUpdate; `settings`: SettingsUpdate; `source`: SourceInfo or null; `live`: LiveInfo (about once a second while a live source plays); `reconnecting`: ReconnectingUpdate; `error`: Error; `eos`: `{}`.",
        "properties":{"seq":{"type":"integer","minimum":1,"description":"Increases by exactly one per event on one connection."},"type":{"type":"string","enum":["snapshot","state","position","buffering","tracks","seek","settings","source","variants","variant","live","reconnecting","error","eos"]},"data":{}},
        "allOf":[{"if":{"properties":{"type":{"const":"snapshot"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/PlayerSnapshot"}}}},{"if":{"properties":{"type":{"const":"state"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/StateChange"}}}},{"if":{"properties":{"type":{"const":"position"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/PositionUpdate"}}}},{"if":{"properties":{"type":{"const":"buffering"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/BufferingUpdate"}}}},{"if":{"properties":{"type":{"const":"tracks"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/Tracks"}}}},{"if":{"properties":{"type":{"const":"seek"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/SeekUpdate"}}}},{"if":{"properties":{"type":{"const":"settings"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/SettingsUpdate"}}}},{"if":{"properties":{"type":{"const":"source"}}},"then":{"properties":{"data":{"oneOf":[{"$ref":"#/components/schemas/SourceInfo"},{"type":"null"}]}}}},{"if":{"properties":{"type":{"const":"live"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/LiveInfo"}}}},{"if":{"properties":{"type":{"const":"reconnecting"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/ReconnectingUpdate"}}}},{"if":{"properties":{"type":{"const":"error"}}},"then":{"properties":{"data":{"$ref":"#/components/schemas/Error"}}}},{"if":{"properties":{"type":{"const":"eos"}}},"then":{"properties":{"data":{"type":"object","maxProperties":0}}}}]
       },
       "MessageID":{"type":["number","string"],"description":"Chosen by the client; echoed back as given."},
       "WebSocketCommand":{
        "type":"object",
        "required":["command"],
        "description":"A command sent as a text frame on the `/v1/events` WebSocket. `args` is the body the HTTP route takes (omit it or send null for commands without one).",
        "properties":{"id":{"$ref":"#/components/schemas/MessageID"},"command":{"type":"string","enum":["open","play","pause","stop","seek","live","set","variant","audio","subtitle"]},"args":{"type":["object","null"]}},
        "allOf":[{"if":{"properties":{"command":{"const":"open"}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/OpenRequest"}}}},{"if":{"properties":{"command":{"const":"seek"}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/SeekRequest"}}}},{"if":{"properties":{"command":{"const":"set"}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/SettingsPatch"}}}},{"if":{"properties":{"command":{"const":"variant"}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/VariantRequest"}}}},{"if":{"properties":{"command":{"const":"audio"}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/TrackRequest"}}}},{"if":{"properties":{"command":{"const":"subtitle"}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/SubtitleRequest"}}}}]
       },
       "WebSocketReply":{
        "type":"object",
        "required":["id","ok"],
        "description":"The reply to one WebSocket command: `{\"id\": 7, \"ok\": true}` or `{\"id\": 7, \"ok\": false, \"error\": {...}}`. `id` is null when the message had none (or it could not be read).",
        "properties":{"id":{"oneOf":[{"$ref":"#/components/schemas/MessageID"},{"type":"null"}]},"ok":{"type":"boolean"},"error":{"$ref":"#/components/schemas/Error","description":"Present only when `ok` is false."}}
       }
      },
      "parameters":{
       "wait":{
        "name":"wait",
        "in":"query",
        "schema":{"$ref":"#/components/schemas/PlaybackState"},
        "description":"Hold the reply until the player reaches this state; the reply is then the snapshot of that moment. An error first answers 422 (`media_error`, `network_error`, `pipeline_error`); the timeout first answers `408 timeout`."
       },
       "timeout":{
        "name":"timeout",
        "in":"query",
        "schema":{"type":"number","exclusiveMinimum":0,"maximum":600,"default":10},
        "description":"Seconds to wait for `wait` before answering `408 timeout`. Only together with `wait` (alone it is `400 invalid_argument`)."
       }
      },
      "responses":{
       "Snapshot":{
        "description":"The player snapshot; a command's is as of acceptance (or, with `?wait=`, as of reaching the state).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/PlayerSnapshot"}}}
       },
       "BadRequest":{
        "description":"`invalid_json`: the body is not valid JSON (routes with a body). `invalid_argument`: a wrong or missing field, or an invalid `wait`/`timeout`. `unsupported_uri`: the URI cannot be played (`POST /v1/player/open`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"invalid_json":{"value":{"error":{"code":"invalid_json","message":"the body is not valid JSON"}}},"invalid_argument":{"value":{"error":{"code":"invalid_argument","message":"missing field 'uri'"}}},"unsupported_uri":{"value":{"error":{"code":"unsupported_uri","message":"cannot play 'ftp://example.com/a.mp4'"}}}}}}
       },
       "Unauthorized":{
        "description":"`unauthorized`: a token is set and the request did not carry `Authorization: Bearer TOKEN`.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"unauthorized":{"value":{"error":{"code":"unauthorized","message":"missing or wrong bearer token"}}}}}}
       },
       "Forbidden":{
        "description":"`forbidden`: a local file outside every `--media-root` (`POST /v1/player/open`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"forbidden":{"value":{"error":{"code":"forbidden","message":"'/etc/passwd' is outside the media roots"}}}}}}
       },
       "NotFound":{
        "description":"`not_found`: the local file does not exist (`POST /v1/player/open`). `unknown_track`: no audio or subtitle track has that id (`POST /v1/player/tracks/audio`, `/subtitle`). `unknown_variant`: no variant has that id (`POST /v1/player/variant`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"not_found":{"value":{"error":{"code":"not_found","message":"no such file '/media/missing.mp4'"}}},"unknown_track":{"value":{"error":{"code":"unknown_track","message":"no track 'a9'"}}},"unknown_variant":{"value":{"error":{"code":"unknown_variant","message":"no variant 'v9'"}}}}}}
       },
       "Timeout":{
        "description":"`timeout`: `?wait=` did not see the state within `?timeout=` seconds.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"timeout":{"value":{"error":{"code":"timeout","message":"the player did not reach 'playing' within 10 s"}}}}}}
       },
       "Conflict":{
        "description":"`no_source`: no source is open. `not_seekable`: the source cannot be seeked (`POST /v1/player/seek`). `not_live`: the source is not live (`POST /v1/player/live`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"no_source":{"value":{"error":{"code":"no_source","message":"no source is open"}}},"not_seekable":{"value":{"error":{"code":"not_seekable","message":"the source is not seekable"}}},"not_live":{"value":{"error":{"code":"not_live","message":"the source is not live"}}}}}}
       },
       "PayloadTooLarge":{
        "description":"`payload_too_large`: the body is larger than the server accepts.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"payload_too_large":{"value":{"error":{"code":"payload_too_large","message":"the body is too large"}}}}}}
       },
       "Unprocessable":{
        "description":"With `?wait=`, the player failed before reaching the state: the reply is the player's own error (the snapshot's `error`: `media_error`, `network_error` or `pipeline_error`), `media_error` when it has none.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"media_error":{"value":{"error":{"code":"media_error","message":"could not demux the stream"}}},"network_error":{"value":{"error":{"code":"network_error","message":"could not fetch the playlist"}}},"pipeline_error":{"value":{"error":{"code":"pipeline_error","message":"the pipeline failed"}}}}}}
       },
       "Error":{"description":"Any other error (for example `500 internal_error`), in the same shape.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}}
      },
      "securitySchemes":{
       "bearerAuth":{"type":"http","scheme":"bearer","description":"Required on every `/v1` request when the daemon has a token (`--token` / `MARQUEE_TOKEN`); not needed on loopback without one."},
       "queryToken":{"type":"apiKey","in":"query","name":"token","description":"The token as `?token=`, for WebSocket clients on `GET /v1/events`."}
      }
     }
    }
    """#
}
