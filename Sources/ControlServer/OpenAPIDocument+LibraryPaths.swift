/// The offline library (API-2 §1): `/v1/library` and its schemas.
extension OpenAPIDocument {
    private static let itemResponses = ##""401":{"$ref":"#/components/responses/Unauthorized"},"404":{"description":"No item has that id (`not_found`).","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"default":{"$ref":"#/components/responses/Error"}"##
    private static let idParameter = ##"{"name":"id","in":"path","required":true,"schema":{"type":"string"},"description":"The item's id (`lib-` and 12 hex digits)."}"##

    static let libraryPaths = #"""
      "/v1/library":{
       "get":{
        "operationId":"listLibrary",
        "summary":"The offline library",
        "description":"Every item, oldest first, with the bytes the library holds and its quota (`--library-quota`, null: none).",
        "tags":["library"],
        "responses":{"200":{"description":"The items.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryList"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "post":{
        "operationId":"addToLibrary",
        "summary":"Download a copy",
        "description":"Records the item (durably, before the reply) and queues its download: at most two download at once, the others wait `queued`. The copy is encrypted as it arrives (AES-256-CTR with a key of its own, wrapped by the device key); the item's `headers` go on every request to the origin and are kept sealed by the device key, never in the clear. A download rides out origin faults (5xx, timeouts, refused or cut connections) with backoff and goes on from what is stored with `Range: bytes=N-`, also after a restart or a `kill -9`; an origin that ignores Range starts the file again. Each 1 MiB is checksummed as it is stored and checked when the file is whole: a damaged copy is `failed` with `damaged`. An HLS VOD URL (`.m3u8`) keeps only the chosen `variant`, `audio` and `subtitles` renditions, with its playlists rewritten to the local files and its AES-128 keys fetched with `keyHeaders`; live playlists fail with `unsupported`. The same `contentId` and `userId` twice is `409 already_in_library`.",
        "tags":["library"],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryAddRequest"},"examples":{"rental":{"value":{"uri":"https://cdn.example.com/films/42.mp4","contentId":"film-42","userId":"u-7","title":"Film 42","headers":{"Authorization":"Bearer …"},"license":{"expires":"2026-12-31T23:59:59Z","maxPlays":3}}}}}}},
        "responses":{"202":{"description":"Recorded and queued.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryItem"}}}},"409":{"description":"The content is already in the library (`already_in_library`); the message names its id.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/library/{id}":{
       "get":{
        "operationId":"getLibraryItem",
        "summary":"One item",
        "tags":["library"],
        "parameters":[\#(idParameter)],
        "responses":{"200":{"description":"The item.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryItem"}}}},\#(itemResponses)}
       },
       "delete":{
        "operationId":"removeFromLibrary",
        "summary":"Remove an item",
        "description":"Stops its download and removes its books and files; the reply comes once they are gone. Answers with the item as it was.",
        "tags":["library"],
        "parameters":[\#(idParameter)],
        "responses":{"200":{"description":"Removed.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryItem"}}}},\#(itemResponses)}
       }
      },
      "/v1/library/{id}/pause":{
       "post":{
        "operationId":"pauseDownload",
        "summary":"Pause a download",
        "description":"A `queued` or `downloading` item becomes `paused`; what arrived is committed first, so a resume fetches nothing twice. Other states are `409 invalid_state`.",
        "tags":["library"],
        "parameters":[\#(idParameter)],
        "responses":{"200":{"description":"Paused.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryItem"}}}},"409":{"description":"`invalid_state`: the item is not queued or downloading.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},\#(itemResponses)}
       }
      },
      "/v1/library/{id}/resume":{
       "post":{
        "operationId":"resumeDownload",
        "summary":"Resume a download",
        "description":"A `paused` or `failed` item is queued again and goes on from what is stored. Other states are `409 invalid_state`.",
        "tags":["library"],
        "parameters":[\#(idParameter)],
        "responses":{"200":{"description":"Queued.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryItem"}}}},"409":{"description":"`invalid_state`: the item is not paused or failed.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},\#(itemResponses)}
       }
      },
      "/v1/library/{id}/license":{
       "put":{
        "operationId":"renewLicense",
        "summary":"Renew a licence",
        "description":"Replaces the item's licence; its plays and play time start again from 0 (a renewed \"3 plays\" grants three). An empty object lifts every limit.",
        "tags":["library"],
        "parameters":[\#(idParameter)],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/License"}}}},
        "responses":{"200":{"description":"The item with its new licence.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/LibraryItem"}}}},\#(itemResponses)}
       }
      }
    """#

    static let librarySchemas = #"""
       "License":{
        "type":"object",
        "additionalProperties":false,
        "description":"A licence's limits, all optional (null counts as not sent). Playing is refused with `403 license_expired` once one is reached: after `expires`, after `maxPlays` plays (a play counts when playback begins), or once `maxPlayTime` seconds have been played (counted while playing and saved every 5 s; a copy whose play time runs out while playing stops with a `license_expired` error event). The latest time the library has seen is kept: while the system clock is more than 300 s behind it, a dated licence counts as expired.",
        "properties":{"expires":{"type":["string","null"],"format":"date-time"},"maxPlays":{"type":["integer","null"],"minimum":0},"maxPlayTime":{"type":["number","null"],"minimum":0}}
       },
       "LicenseState":{
        "type":"object",
        "required":["expires","maxPlays","plays","maxPlayTime","playTime","expired","reason"],
        "properties":{"expires":{"type":["string","null"],"format":"date-time"},"maxPlays":{"type":["integer","null"]},"plays":{"type":"integer","minimum":0},"maxPlayTime":{"type":["number","null"]},"playTime":{"type":"number","minimum":0},"expired":{"type":"boolean"},"reason":{"type":["string","null"],"enum":["date","plays","playTime",null],"description":"The limit reached, null while the copy may play."}}
       },
       "LibraryAddRequest":{
        "type":"object",
        "required":["uri","contentId"],
        "additionalProperties":false,
        "properties":{"uri":{"type":"string","pattern":"^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]","maxLength":8192,"description":"An http(s) URL of a progressive file (MP4, MKV, WebM, …) or of an HLS VOD playlist (`.m3u8`); another scheme is `400 unsupported_uri`."},"contentId":{"type":"string","minLength":1,"maxLength":2048},"userId":{"type":["string","null"],"maxLength":2048},"title":{"type":["string","null"],"maxLength":2048},"headers":{"oneOf":[{"$ref":"#/components/schemas/RequestHeaders"},{"type":"null"}],"description":"Sent on every request to the origin; kept sealed by the device key. No hop-by-hop headers, no line breaks."},"keyHeaders":{"oneOf":[{"$ref":"#/components/schemas/RequestHeaders"},{"type":"null"}],"description":"HLS: sent on key requests, on top of `headers`; kept sealed."},"variant":{"description":"HLS: `highest` (the default), `lowest`, a variant id as the player names it (`v1` the lowest), or `{\"maxHeight\": N}` (the best at most N lines tall; the lowest when none is).","oneOf":[{"type":"string","minLength":1},{"type":"object","required":["maxHeight"],"additionalProperties":false,"properties":{"maxHeight":{"type":"integer","minimum":1}}},{"type":"null"}]},"audio":{"description":"HLS: the variant's audio renditions to keep, `all` or a list of languages (`en` matches `en-US`); by default the DEFAULT=YES one.","oneOf":[{"type":"string","const":"all"},{"type":"array","items":{"type":"string"}},{"type":"null"}]},"subtitles":{"description":"HLS: subtitle renditions to keep, `all` or a list of languages; none by default.","oneOf":[{"type":"string","const":"all"},{"type":"array","items":{"type":"string"}},{"type":"null"}]},"license":{"oneOf":[{"$ref":"#/components/schemas/License"},{"type":"null"}]},"keyService":{"oneOf":[{"$ref":"#/components/schemas/KeyService"},{"type":"null"}],"description":"HLS: each key is obtained by POSTing `{\"keyUri\", \"contentId\", \"userId\"}` here instead of fetching its URI (`skd://…` keys can then be kept); stored encrypted like the media, its headers sealed. Default: `--key-service`."}}
       },
       "LibraryItem":{
        "type":"object",
        "required":["id","contentId","uri","kind","state","bytes","totalBytes","progress","error","license","createdAt","completedAt"],
        "properties":{"id":{"type":"string"},"contentId":{"type":"string"},"userId":{"type":"string"},"title":{"type":"string"},"uri":{"type":"string"},"kind":{"type":"string","enum":["file","hls"]},"state":{"type":"string","enum":["queued","downloading","paused","complete","failed"]},"bytes":{"type":"integer","minimum":0,"description":"Bytes stored (acknowledged: they survive a crash)."},"totalBytes":{"type":["integer","null"],"description":"Null until the origin says."},"progress":{"type":["number","null"],"minimum":0,"maximum":1},"error":{"oneOf":[{"type":"null"},{"type":"object","required":["code","message"],"properties":{"code":{"type":"string","description":"`network`, `origin_error` (5xx), `origin_refused` (4xx), `quota_exceeded`, `storage`, `damaged`, `missing` (the file went away), `invalid_source` (not a playlist the parser takes), `unsupported` (a live HLS playlist, a key that is not http(s)), `unknown_variant`. While `downloading`, the fault being ridden out."},"message":{"type":"string"}}}]},"license":{"$ref":"#/components/schemas/LicenseState"},"createdAt":{"type":"string","format":"date-time"},"completedAt":{"type":["string","null"],"format":"date-time"}}
       },
       "LibraryList":{
        "type":"object",
        "required":["items","usedBytes","quotaBytes"],
        "properties":{"items":{"type":"array","items":{"$ref":"#/components/schemas/LibraryItem"}},"usedBytes":{"type":"integer","minimum":0},"quotaBytes":{"type":["integer","null"]}}
       },
       "DownloadUpdate":{
        "type":"object",
        "required":["id","state","bytes","totalBytes","progress","error"],
        "description":"The `download` event: at most twice a second per item while it downloads (the last change of a half-second window is sent at its end, never dropped), at every state change, and when a fault starts or stops being ridden out.",
        "properties":{"id":{"type":"string"},"state":{"type":"string","enum":["queued","downloading","paused","complete","failed"]},"bytes":{"type":"integer"},"totalBytes":{"type":["integer","null"]},"progress":{"type":["number","null"]},"error":{"oneOf":[{"type":"null"},{"type":"object","required":["code","message"],"properties":{"code":{"type":"string"},"message":{"type":"string"}}}],"description":"As the item's `error`."}}
       },
       "LibraryChange":{
        "type":"object",
        "required":["id","change"],
        "description":"The `library` event: an item was added or removed, or its licence changed (a renewal, a play counted).",
        "properties":{"id":{"type":"string"},"change":{"type":"string","enum":["added","removed","license"]}}
       },
       "BlockedUpdate":{
        "type":"object",
        "description":"The `blocked` event: the session server (`--session-url`) refused this viewing, with its `code` and `message`; or it stayed unreachable past `--session-grace` (code `unreachable`). Playback has stopped in state `error` with code `session_blocked`.",
        "properties":{"code":{"type":["string","null"]},"message":{"type":["string","null"]}}
       },
       "KeyService":{
        "type":"object",
        "required":["uri"],
        "additionalProperties":false,
        "description":"A key service (API-2 §2): POSTed `{\"keyUri\", \"contentId\", \"userId\"}`, it answers with the raw key bytes (`application/octet-stream`). A 4xx is `key_error`; a 5xx or no answer is retried like an origin fault.",
        "properties":{"uri":{"type":"string","pattern":"^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]","maxLength":8192},"headers":{"oneOf":[{"$ref":"#/components/schemas/RequestHeaders"},{"type":"null"}],"description":"Sent with every key request (a bearer token); never logged."}}
       }
    """#
}
