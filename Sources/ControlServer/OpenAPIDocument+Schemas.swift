extension OpenAPIDocument {
    /// The members of `components.schemas` for the player state, errors and the playback commands' bodies.
    static let schemas = #"""
       "PlaybackState":{"type":"string","enum":["idle","opening","buffering","paused","playing","ended","error"],"description":"The public player state."},
       "RepeatMode":{"type":"string","enum":["none","one","all"]},
       "SourceKind":{"type":"string","enum":["file","hls","live"]},
       "ErrorCode":{
        "type":"string",
        "enum":["invalid_json","invalid_argument","unsupported_uri","unauthorized","forbidden","not_found","unknown_track","unknown_variant","route_not_found","method_not_allowed","timeout","too_many_requests","not_seekable","not_live","no_source","no_pip","payload_too_large","unsupported_media_type","media_error","network_error","pipeline_error","subtitle_error","internal_error","no_video","headers_too_large","missing_plugin","unsupported_format","not_in_library","download_incomplete","license_expired","already_in_library","quota_exceeded","invalid_state","session_blocked","key_error","protected_content","resolver_error"],
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
        "properties":{"uri":{"type":"string"},"kind":{"$ref":"#/components/schemas/SourceKind"},"live":{"type":"boolean","description":"True for sources with no end: kind live, and HLS whose media playlists have no EXT-X-ENDLIST."},"contentId":{"type":"string","description":"Present when the client gave one on open."},"offline":{"type":"boolean","description":"True when the offline library's copy plays (`uri` is still the origin's)."},"protected":{"type":"boolean","description":"True while protected content plays (`open {\"protected\": true}`): `GET /v1/snapshot.jpg` is `403 protected_content`."},"userId":{"type":"string","description":"Present when the client gave one on open."},"originalUrl":{"type":"string","description":"Present when the client gave one on open."},"watched":{"type":"number","minimum":0,"description":"Seconds of this content watched across sessions: the open's `watched` plus the time spent playing since."}}
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
        "properties":{"edge":{"type":"number","description":"The newest recorded moment, in the timeline of position (for timeshift: seconds since recording started)."},"behind":{"type":"number","minimum":0,"description":"How many seconds the output is behind the live edge."},"window":{"type":"number","description":"Seconds that can be gone back: edge minus seekable.start."},"seekable":{"$ref":"#/components/schemas/TimeRange","description":"In `live` events only (the snapshot has its own `seekable`): the range a seek may go to now, as the snapshot's `seekable`."}}
       },
       "ABLoop":{"type":"object","required":["a","b"],"additionalProperties":false,"properties":{"a":{"type":"number","minimum":0,"description":"Seconds."},"b":{"type":"number","description":"Seconds."}}},
       "PlayerSnapshot":{
        "type":"object",
        "description":"The whole public player state. Every key is always present; absent values are `null`.",
        "required":["state","source","position","duration","buffering","seekable","live","tracks","variants","variant","abLoop","pip","watermark","cue","queue","error",\#(snapshotSettingsRequired)],
        "properties":{\#(snapshotSettingsProperties),"state":{"$ref":"#/components/schemas/PlaybackState"},"source":{"oneOf":[{"$ref":"#/components/schemas/SourceInfo"},{"type":"null"}]},"position":{"type":["number","null"],"description":"Seconds in the media timeline (for live timeshift, in the recorded window)."},"duration":{"type":["number","null"],"description":"Seconds; null when unknown or live."},"buffering":{"type":"integer","minimum":0,"maximum":100,"default":100,"description":"Percent."},"seekable":{"oneOf":[{"$ref":"#/components/schemas/TimeRange"},{"type":"null"}]},"live":{"oneOf":[{"$ref":"#/components/schemas/LiveInfo"},{"type":"null"}]},"tracks":{"$ref":"#/components/schemas/Tracks"},"variants":{"type":"array","items":{"$ref":"#/components/schemas/Variant"}},"variant":{"$ref":"#/components/schemas/VariantState"},"abLoop":{"oneOf":[{"$ref":"#/components/schemas/ABLoop"},{"type":"null"}]},"pip":{"oneOf":[{"$ref":"#/components/schemas/PipInfo"},{"type":"null"}],"description":"The picture-in-picture; null when none runs."},"watermark":{"oneOf":[{"$ref":"#/components/schemas/Watermark"},{"type":"null"}],"description":"The watermark as drawn; null when there is none."},"cue":{"oneOf":[{"$ref":"#/components/schemas/Cue"},{"type":"null"}],"description":"The subtitle cue on screen now; null when none is."},"queue":{"oneOf":[{"$ref":"#/components/schemas/QueueInfo"},{"type":"null"}],"description":"The queue being played; null when there is none."},"error":{"oneOf":[{"$ref":"#/components/schemas/Error"},{"type":"null"}]}}
       },
       "OpenRequest":{
        "type":"object",
        "anyOf":[{"required":["uri"],"properties":{"uri":{"type":"string"}}},{"required":["contentId"],"properties":{"contentId":{"type":"string"}}}],
        "additionalProperties":false,
        "description":"Unknown fields are `400 invalid_argument`; an optional field sent as `null` counts as not sent. A `contentId` without `uri` plays the offline library's copy (`404 not_in_library`, `409 download_incomplete`, `403 license_expired`); with a `uri`, a complete copy of that content plays instead of the network. The snapshot's `source.offline` is then true.",
        "properties":{"uri":{"$ref":"#/components/schemas/SourceURI","description":"A `file://` URI or a path, an HLS URL (`http(s)://`), a live source (`udp://HOST:PORT`, multicast too; `rtsp://`) or `demo://`. Must not be blank; at most 8192 bytes of UTF-8."},"start":{"type":["number","null"],"minimum":0,"description":"Seconds to start at."},"autoplay":{"type":["boolean","null"]},"headers":{"$ref":"#/components/schemas/RequestHeaders","description":"Request headers sent on every request of an http(s) session (master, playlists, segments, keys), through the daemon's loopback proxy. No hop-by-hop headers, no line breaks. Like `referer`, `userAgent` and `keyHeaders`, only for network sources: with a local file or `demo://` they are `400 invalid_argument`."},"referer":{"$ref":"#/components/schemas/HeaderValue","description":"Sent as Referer on every request."},"userAgent":{"$ref":"#/components/schemas/HeaderValue","description":"Sent as User-Agent on every request."},"keyHeaders":{"$ref":"#/components/schemas/RequestHeaders","description":"Extra headers for EXT-X-KEY requests only (for example a key server's bearer token)."},"timeshift":{"type":["object","null"],"required":["window"],"additionalProperties":false,"description":"Record the live source (udp://, rtsp://, live HLS, demo://) into a ring of segments under the data directory and play from it: pause, seek back within the window, return to the live edge. 400 for files.","properties":{"window":{"type":"number","minimum":1,"maximum":86400,"description":"Seconds kept for going back."}}},"subtitle":{"oneOf":[{"$ref":"#/components/schemas/SourceURI"},{"type":"null"}],"description":"An external subtitle file to show with the source: a local path or `file://` URI (under the media roots) or an `http(s)://` URL (allowed by `--allow-scheme`, fetched with this open's `headers`, `referer` and `userAgent`) of an SRT, SAMI or WebVTT file, at most 16 MiB. Marquee draws its cues itself, in the `subtitleStyle` of the settings, and sends each cue on screen as a `cue` event. The reply waits for an http(s) file (playback goes on meanwhile); a file that cannot be read, fetched (a 404, a timeout: the message names the HTTP status) or parsed, or is too large, is `422 subtitle_error` and the open is not applied. Must not be blank."},"subtitleLanguage":{"type":["string","null"],"pattern":"^[A-Za-z][A-Za-z0-9_-]{0,34}$","description":"The subtitle language to show: `ko` matches `ko`, `ko-KR` and `KO_kr`. A SAMI file with classes in several languages is listed as one subtitle track per language (`tracks.subtitle[].language`) and the matching one is shown (else the first)."},"contentId":{"type":["string","null"],"maxLength":2048},"userId":{"type":["string","null"],"maxLength":2048,"description":"Who watches (content services): reported with analytics and the key of resume points."},"originalUrl":{"type":["string","null"],"maxLength":2048,"description":"Where the viewer found the content (a page URL); reported with analytics."},"watched":{"type":["number","null"],"minimum":0,"description":"Seconds already watched in earlier sessions; time spent playing is added to it."},"kind":{"oneOf":[{"$ref":"#/components/schemas/SourceKind"},{"type":"null"}],"description":"A hint for URIs whose kind cannot be told from their text."},"keyService":{"oneOf":[{"$ref":"#/components/schemas/KeyService"},{"type":"null"}],"description":"HLS: each `EXT-X-KEY` key is obtained by POSTing `{\"keyUri\", \"contentId\", \"userId\"}` here (the reply's body is the raw key); key URIs of any scheme (`skd://…` too) are never fetched directly. Keys stay in memory. Default: `--key-service`."},"resolve":{"type":["boolean","null"],"description":"Ask `--url-resolver` for the URI and headers to play (needs `contentId`; `uri`, when given, is sent to the resolver). Asked again on a 401 or 403 from the origin and when reconnecting."},"protected":{"type":["boolean","null"],"description":"Protected content: `GET /v1/snapshot.jpg` answers `403 protected_content` while it plays and `source.protected` is true. It does not protect the video output itself (HDMI)."},"watermark":{"oneOf":[{"$ref":"#/components/schemas/Watermark"},{"type":"null"}],"description":"A watermark (the body of `PUT /v1/overlays/watermark`) shown while this item plays; `{userId}` and `{contentId}` in its text are replaced. The watermark set with `PUT /v1/overlays/watermark` comes back when the item ends."}}
       },
       "SourceURI":{"type":"string","minLength":1,"maxLength":8192,"pattern":"\\S","description":"A URI or a local path: not blank (not only white space), at most 8192 bytes of UTF-8 (`400 invalid_argument` otherwise; `maxLength` counts characters, so a URI of many multi-byte characters is refused below it)."},
       "HeaderName":{"type":"string","pattern":"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$","not":{"pattern":"^([Cc][Oo][Nn][Nn][Ee][Cc][Tt][Ii][Oo][Nn]|[Kk][Ee][Ee][Pp]-[Aa][Ll][Ii][Vv][Ee]|[Pp][Rr][Oo][Xx][Yy]-[Aa][Uu][Tt][Hh][Ee][Nn][Tt][Ii][Cc][Aa][Tt][Ee]|[Pp][Rr][Oo][Xx][Yy]-[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]|[Tt][Ee]|[Tt][Rr][Aa][Ii][Ll][Ee][Rr]|[Tt][Rr][Aa][Nn][Ss][Ff][Ee][Rr]-[Ee][Nn][Cc][Oo][Dd][Ii][Nn][Gg]|[Uu][Pp][Gg][Rr][Aa][Dd][Ee]|[Hh][Oo][Ss][Tt]|[Cc][Oo][Nn][Tt][Ee][Nn][Tt]-[Ll][Ee][Nn][Gg][Tt][Hh])$"},"description":"An HTTP header name (a token), not a hop-by-hop or framing header (`Connection`, `Keep-Alive`, `Proxy-Authenticate`, `Proxy-Authorization`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`, `Host`, `Content-Length`, in any case)."},
       "HeaderValue":{"type":["string","null"],"pattern":"^[^\\r\\n\\u0000]*$","description":"An HTTP header value: no line breaks (CR, LF) and no NUL."},
       "RequestHeaders":{"type":["object","null"],"propertyNames":{"$ref":"#/components/schemas/HeaderName"},"additionalProperties":{"type":"string","pattern":"^[^\\r\\n\\u0000]*$"}},
       "SeekRequest":{
        "type":"object",
        "additionalProperties":false,
        "description":"Exactly one of `position` (absolute) or `offset` (relative); the other is left out or `null`. Seeks snap to a keyframe unless `exact` is true. Unknown fields are `400 invalid_argument`.",
        "properties":{"position":{"type":["number","null"],"minimum":0,"description":"Absolute position, seconds."},"offset":{"type":["number","null"],"description":"Relative to the current position, seconds (negative: back)."},"exact":{"type":["boolean","null"],"default":false}},
        "oneOf":[{"required":["position"],"properties":{"position":{"type":"number"},"offset":{"type":"null"}}},{"required":["offset"],"properties":{"offset":{"type":"number"},"position":{"type":"null"}}}]
       },
       "VariantRequest":{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"A variant id from `variants`, or `auto` for adaptive."}}},
       "TrackRequest":{"type":"object","required":["id"],"properties":{"id":{"type":"string","description":"An audio track id from `tracks.audio`."}}},
       "SubtitleRequest":{
        "type":"object",
        "additionalProperties":false,
        "description":"Exactly one of `id` (a track, or null for off) or `uri` (an external file); an empty body is an error rather than a silent \"off\".",
        "properties":{"id":{"type":["string","null"],"description":"A subtitle track id from `tracks.subtitle`, or null to turn subtitles off."},"uri":{"$ref":"#/components/schemas/SourceURI","description":"A local path or `file://` URI of an SRT, SAMI or WebVTT file, or an `http(s)://` URL fetched with the loaded item's request headers (the reply waits for it), added and selected (a SAMI file in several languages: its first); Marquee draws its cues and sends them as `cue` events. Must not be blank."}},
        "oneOf":[{"required":["id"],"not":{"required":["uri"]}},{"required":["uri"],"not":{"required":["id"]}}]
       }
    """#
}
