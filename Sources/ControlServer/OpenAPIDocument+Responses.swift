extension OpenAPIDocument {
    /// The members of `components` besides `schemas`: shared parameters, responses and security schemes.
    static let sharedComponents = #"""
      "parameters":{
       "wait":{
        "name":"wait",
        "in":"query",
        "schema":{"$ref":"#/components/schemas/PlaybackState"},
        "description":"Hold the reply until the player reaches this state; the reply is then the snapshot of that moment. An error first answers 422 (`media_error`, `unsupported_format`, `missing_plugin`, `network_error`, `pipeline_error`); the timeout first answers `408 timeout`."
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
        "description":"`invalid_json`: the body is not valid JSON (routes with a body). `invalid_argument`: a wrong or missing field, or an invalid query parameter (`wait`, `timeout`; `width` of `/v1/snapshot.jpg`). `unsupported_uri`: the URI cannot be played (`POST /v1/player/open`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"invalid_json":{"value":{"error":{"code":"invalid_json","message":"the body is not valid JSON"}}},"invalid_argument":{"value":{"error":{"code":"invalid_argument","message":"missing field 'uri'"}}},"unsupported_uri":{"value":{"error":{"code":"unsupported_uri","message":"cannot play 'ftp://example.com/a.mp4'"}}}}}}
       },
       "Unauthorized":{
        "description":"`unauthorized`: a token is set and the request did not carry `Authorization: Bearer TOKEN`.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"unauthorized":{"value":{"error":{"code":"unauthorized","message":"missing or wrong bearer token"}}}}}}
       },
       "Forbidden":{
        "description":"`forbidden`: a local file outside every `--media-root`, or unreadable (`POST /v1/player/open`, `POST /v1/pip`, a subtitle file, a watermark image).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"forbidden":{"value":{"error":{"code":"forbidden","message":"'/etc/passwd' is outside the media roots"}}}}}}
       },
       "NotFound":{
        "description":"`not_found`: the local file does not exist (`POST /v1/player/open`, `POST /v1/pip`, a subtitle file, a watermark image). `unknown_track`: no audio or subtitle track has that id (`POST /v1/player/tracks/audio`, `/subtitle`). `unknown_variant`: no variant has that id (`POST /v1/player/variant`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"not_found":{"value":{"error":{"code":"not_found","message":"no such file '/media/missing.mp4'"}}},"unknown_track":{"value":{"error":{"code":"unknown_track","message":"no track 'a9'"}}},"unknown_variant":{"value":{"error":{"code":"unknown_variant","message":"no variant 'v9'"}}}}}}
       },
       "Timeout":{
        "description":"`timeout`: `?wait=` did not see the state within `?timeout=` seconds.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"timeout":{"value":{"error":{"code":"timeout","message":"the player did not reach 'playing' within 10 s"}}}}}}
       },
       "Conflict":{
        "description":"`no_source`: no source is open. `not_seekable`: the source cannot be seeked (`POST /v1/player/seek`). `not_live`: the source is not live (`POST /v1/player/live`). `invalid_state`: the queue is at its last item and does not loop (`POST /v1/queue/next`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"no_source":{"value":{"error":{"code":"no_source","message":"no source is open"}}},"not_seekable":{"value":{"error":{"code":"not_seekable","message":"the source is not seekable"}}},"not_live":{"value":{"error":{"code":"not_live","message":"the source is not live"}}}}}}
       },
       "NoPip":{
        "description":"`no_pip`: no picture-in-picture runs (`PATCH` and `DELETE /v1/pip`, `POST /v1/pip/swap`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"no_pip":{"value":{"error":{"code":"no_pip","message":"no picture-in-picture is running"}}}}}}
       },
       "NoVideo":{
        "description":"`no_video`: no video is on screen to take a snapshot of (`GET /v1/snapshot.jpg`).",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"no_video":{"value":{"error":{"code":"no_video","message":"no video is on screen"}}}}}}
       },
       "TooManyRequests":{
        "description":"`too_many_requests`: 4 snapshots are already being encoded (`GET /v1/snapshot.jpg`); try again.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"too_many_requests":{"value":{"error":{"code":"too_many_requests","message":"4 snapshots are being encoded; try again"}}}}}}
       },
       "PayloadTooLarge":{
        "description":"`payload_too_large`: the body is larger than the server accepts.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"payload_too_large":{"value":{"error":{"code":"payload_too_large","message":"the body is too large"}}}}}}
       },
       "Unprocessable":{
        "description":"`subtitle_error`: an external subtitle file cannot be read, fetched (the message names the HTTP status) or parsed, or is larger than 16 MiB (`POST /v1/player/tracks/subtitle` with `uri`, `POST /v1/player/open` with `subtitle`). With `?wait=`, the player failed before reaching the state: the reply is the player's own error (the snapshot's `error`: `media_error`, `unsupported_format`, `missing_plugin`, `network_error` or `pipeline_error`), `media_error` when it has none.",
        "content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"},"examples":{"media_error":{"value":{"error":{"code":"media_error","message":"could not demux the stream"}}},"unsupported_format":{"value":{"error":{"code":"unsupported_format","message":"typefind found nothing: Could not determine type of stream."}}},"network_error":{"value":{"error":{"code":"network_error","message":"could not fetch the playlist"}}},"pipeline_error":{"value":{"error":{"code":"pipeline_error","message":"the pipeline failed"}}},"subtitle_error":{"value":{"error":{"code":"subtitle_error","message":"cannot parse '/media/movie.en.srt' as SRT, SAMI or WebVTT"}}}}}}
       },
       "Error":{"description":"Any other error (for example `500 internal_error`), in the same shape.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}}
      },
      "securitySchemes":{
       "bearerAuth":{"type":"http","scheme":"bearer","description":"Required on every `/v1` request when the daemon has a token (`--token` / `MARQUEE_TOKEN`); not needed on loopback without one."},
       "queryToken":{"type":"apiKey","in":"query","name":"token","description":"The token as `?token=`, for WebSocket clients on `GET /v1/events`."}
      }
    """#
}
