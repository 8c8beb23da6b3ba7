extension OpenAPIDocument {
    /// The members of `paths` for `/v1/player` and its playback commands.
    static let playerPaths = #"""
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
        "description":"Changes any subset of rate, volume, muted, audioDelay, repeat and subtitleStyle (WebSocket command `set`). `subtitleStyle` changes any subset of the subtitle font size, colour and alignment, applied to the cue on screen at once. Out-of-range values and unknown fields are `invalid_argument`.",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":false,"description":"An empty body (or none) changes nothing and answers the snapshot.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/SettingsPatch"},"examples":{"volume":{"value":{"volume":0.5,"muted":false}},"rate":{"value":{"rate":1.5}},"subtitleStyle":{"value":{"subtitleStyle":{"fontSize":0.06,"color":"#FFFF00FF","align":"bottom"}}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/player/open":{
       "post":{
        "operationId":"openSource",
        "summary":"Open a source",
        "description":"Loads a file (`file://` or a path), an HLS stream (`http(s)://...m3u8`) or a live source, replacing the current one (WebSocket command `open`). `subtitle` adds an external SRT, SAMI or WebVTT file, drawn by Marquee and sent as `cue` events. When the subtitle file fails (`422 subtitle_error`: unreadable or not parsable; or `403 forbidden`, `404 not_found`, `400 unsupported_uri` for a non-local URI) the whole open is refused with that error before anything changes: what was playing goes on.",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/OpenRequest"},"examples":{"file":{"value":{"uri":"file:///media/movie.mkv","start":30,"autoplay":true}},"hls":{"value":{"uri":"https://example.com/live/index.m3u8","timeshift":{"window":600}}},"subtitle":{"value":{"uri":"file:///media/movie.mkv","subtitle":"/media/movie.en.srt"}},"demo":{"summary":"The built-in live test source (a test pattern with a clock and a tone)","value":{"uri":"demo://"}}}}}},
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
        "summary":"Choose the subtitle track, or add a subtitle file",
        "description":"Exactly one of: `{\"id\": \"subtitle-1\"}` selects a subtitle track; `{\"id\": null}` turns subtitles off; `{\"uri\": \"/media/movie.en.srt\"}` adds an external SRT, SAMI or WebVTT file (a local path or `file://` URI) to the open source and selects it (WebSocket command `subtitle`). An added file is listed in `tracks.subtitle` as `external-1`, `external-2`, … (title: the file name; codec: the format), so it can be selected again by id. External subtitles are drawn by Marquee in the `subtitleStyle` of the settings, and each cue on screen is sent as a `cue` event. An empty body, or both keys, is `400 invalid_argument`; the file is checked like a source (`400 unsupported_uri` for a non-local URI, `403 forbidden`, `404 not_found`); one that cannot be read or parsed is `422 subtitle_error`; with no source open, `409 no_source`.",
        "tags":["commands"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/SubtitleRequest"},"examples":{"track":{"value":{"id":"subtitle-1"}},"off":{"value":{"id":null}},"file":{"value":{"uri":"file:///media/movie.en.vtt"}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"403":{"$ref":"#/components/responses/Forbidden"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/Conflict"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      }
    """#
}
