extension OpenAPIDocument {
    /// The members of `paths` for the event stream and the service routes.
    static let servicePaths = #"""
      "/v1/events":{
       "get":{
        "operationId":"streamEvents",
        "summary":"Event stream (WebSocket or Server-Sent Events)",
        "tags":["events"],
        "description":"The player's event stream, in one of two forms:\n\n- **WebSocket** when the request asks to upgrade (`Connection: Upgrade`, `Upgrade: websocket`): the server answers `101 Switching Protocols` and sends each event as one JSON text frame. A client that cannot set headers passes the token as `?token=TOKEN`.\n- **Server-Sent Events** otherwise; send `Accept: text/event-stream` (so `curl -N` can follow the player): `200` with `Content-Type: text/event-stream`, opening with a comment line, then each event as one SSE message `data: <Event JSON>` followed by a blank line.\n\nData-flow guarantees, on both forms:\n\n1. The first event on every connection is `{\"seq\": 1, \"type\": \"snapshot\", \"data\": <PlayerSnapshot>}`.\n2. `seq` starts at 1 and increases by exactly one per event on that connection (numbering is per connection, not global).\n3. Events reach a client in the order the player emitted them.\n4. `position` is throttled to at most 4 per second while playing.\n5. A slow client never stalls the player: while its socket is backed up, events wait in a per-client queue bounded at 256 events. Latest-value events (`position`, `buffering`, `settings`, `tracks`, `live`, `pip`, `watermark`, `cue`, `queue`) replace an older queued event of the same type. On overflow the events queued for it are dropped and, once it catches up, it is sent a fresh `snapshot` (with the next `seq`), then the stream continues; a client that sees a `snapshot` after the first should replace its whole state with it.\n\nEvent types: `snapshot`, `state`, `position`, `buffering`, `tracks`, `seek`, `settings`, `source`, `variants`, `variant`, `live`, `reconnecting`, `recovered`, `pip`, `watermark`, `cue`, `analytics`, `queue`, `download`, `library`, `blocked`, `error`, `eos` (see the `Event` schema for each `data`). The offline library's: `download` (a download's progress, at most twice a second per item, and every state change), `library` (an item added, removed, or its licence changed). Session control's: `blocked` (the session server refused the viewing, or stayed unreachable past `--session-grace`; playback stopped with `session_blocked`). The output stage's: `pip` (the picture-in-picture whenever it starts, moves, is swapped, is (un)muted or changes state; null once stopped), `watermark` (the watermark as drawn; null once removed), `cue` (the subtitle cue now on screen; null when it is cleared).\n\nOver the WebSocket a client may also send commands, one JSON text frame each: `{\"id\": 7, \"command\": \"seek\", \"args\": {\"position\": 12.5}}` (schema `WebSocketCommand`). `args` is the body of the matching HTTP route. Each gets one reply frame, `{\"id\": 7, \"ok\": true}` or `{\"id\": 7, \"ok\": false, \"error\": {\"code\": \"...\", \"message\": \"...\"}}` (schema `WebSocketReply`), with the same error codes as HTTP. Command names: `open`, `play`, `pause`, `stop`, `seek`, `live`, `set` (the settings of `PATCH /v1/player`), `variant`, `audio`, `subtitle`, `pip.start` (`POST /v1/pip`), `pip.update` (`PATCH /v1/pip`), `pip.stop` (`DELETE /v1/pip`), `pip.swap` (`POST /v1/pip/swap`), `watermark` (`PUT /v1/overlays/watermark`), `watermark.remove` (`DELETE /v1/overlays/watermark`), `queue.set` (`PUT /v1/queue`), `queue.next` (`POST /v1/queue/next`), `queue.previous` (`POST /v1/queue/previous`). `ok: true` means the player accepted the command. Replies are not events: they carry no `seq` and are never dropped; the effects of a command arrive as events.",
        "security":[{"bearerAuth":[]},{"queryToken":[]},{}],
        "parameters":[{"name":"Accept","in":"header","schema":{"type":"string","examples":["text/event-stream"]},"description":"`text/event-stream` for Server-Sent Events (any GET that does not upgrade gets the SSE stream)."},{"name":"Upgrade","in":"header","schema":{"type":"string","examples":["websocket"]},"description":"`websocket` (with `Connection: Upgrade`, `Sec-WebSocket-Key` and `Sec-WebSocket-Version: 13`, the WebSocket handshake) selects the WebSocket; `websocket` without the handshake headers is `400 invalid_argument`; any other value is ignored (the SSE stream)."},{"name":"token","in":"query","schema":{"type":"string"},"description":"The token, for WebSocket clients that cannot send `Authorization`."}],
        "responses":{"101":{"description":"Switching Protocols: a WebSocket. The server sends `Event` text frames; the client may send `WebSocketCommand` frames and gets a `WebSocketReply` for each.","content":{"application/json":{"schema":{"oneOf":[{"$ref":"#/components/schemas/Event"},{"$ref":"#/components/schemas/WebSocketReply"}]}}}},"200":{"description":"A Server-Sent Events stream of `Event`s, open until the client goes away.","content":{"text/event-stream":{"schema":{"type":"object","required":["data"],"description":"One message of the stream, as an SSE client parses it (the schema of each message, as OpenAPI 3.1 tools read `text/event-stream`): its `data` is one `Event` as JSON; messages carry no `event` name (so they are `message`s), `id` or `retry`.","properties":{"data":{"type":"string","contentMediaType":"application/json","contentSchema":{"$ref":"#/components/schemas/Event"}},"event":{"const":"message"}}},"example":"data: {\"data\":{\"previous\":\"paused\",\"state\":\"playing\"},\"seq\":2,\"type\":\"state\"}\n\n"}}},"400":{"description":"`invalid_argument`: `Upgrade: websocket` without `Sec-WebSocket-Key` or `Sec-WebSocket-Version: 13`.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"429":{"description":"`too_many_requests`: `--max-event-clients` event streams (default 256) are already open; try again after `Retry-After` seconds.","headers":{"Retry-After":{"schema":{"type":"integer","minimum":0},"description":"Seconds to wait before trying again."}},"content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/healthz":{
       "get":{
        "operationId":"getHealth",
        "summary":"Liveness",
        "tags":["service"],
        "security":[{}],
        "description":"Answers while the daemon runs. Needs no token.",
        "responses":{"200":{"description":"The daemon is up.","content":{"application/json":{"schema":{"type":"object","required":["status","version","gstreamer"],"properties":{"status":{"type":"string","const":"ok"},"version":{"type":"string","description":"Marquee's version.","examples":["1.0.0"]},"gstreamer":{"type":"string","description":"The GStreamer runtime version.","examples":["1.22.0"]}}}}}},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/metrics":{
       "get":{
        "operationId":"getMetrics",
        "summary":"Prometheus metrics",
        "tags":["service"],
        "description":"Metrics in the Prometheus text exposition format (`Content-Type: text/plain; version=0.0.4`). Needs the token when one is set. Besides request, event-client and player counters, `marquee_main_loop_lag_seconds` (histogram), `marquee_main_loop_lag_last_seconds` and `marquee_main_loop_lag_max_seconds` say how late a 100 ms timer fired on the thread that answers HTTP and WebSocket: more than a few milliseconds means that thread was kept waiting.",
        "responses":{"200":{"description":"The metrics.","content":{"text/plain":{"schema":{"type":"string"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/openapi.json":{
       "get":{
        "operationId":"getOpenAPI",
        "summary":"This document",
        "tags":["service"],
        "security":[{}],
        "description":"The OpenAPI 3.1 description of the control API. Needs no token.",
        "responses":{"200":{"description":"This document.","content":{"application/json":{"schema":{"type":"object"}}}},"default":{"$ref":"#/components/responses/Error"}}
       }
      }
    """#
}
