/// Content sessions: the analytics outbox's route and the analytics schemas.
extension OpenAPIDocument {
    static let contentPaths = #"""
      "/v1/analytics":{
       "get":{
        "operationId":"getAnalytics",
        "summary":"The analytics outbox",
        "description":"The counters of the durable analytics outbox (kept in SQLite under `--data-dir`, across restarts): events waiting (`pending`), delivered (`sent`), refused by the collector with a 4xx and not retried (`failed`), and dropped (`DELETE` or the outbox's bound of 100000 pending). `enabled` is false without `--analytics-url`: nothing is recorded then.",
        "tags":["content"],
        "responses":{"200":{"description":"The counters.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/AnalyticsStatus"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "delete":{
        "operationId":"dropAnalytics",
        "summary":"Drop what is pending",
        "description":"Drops every pending event (a large backlog the collector will never take); they count as `dropped`. Answers with the counters.",
        "tags":["content"],
        "responses":{"200":{"description":"The counters after the drop.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/AnalyticsStatus"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "patch":{
        "operationId":"updateAnalytics",
        "summary":"Turn analytics on or off; change the interval",
        "description":"At run time, until the daemon restarts (the flags give the values it starts with). `enabled: false` records no new events (what is pending is still delivered, and `flush` still sends it); `true` records again. `interval` (1 to 86400 s) is the time between `playing` events; a change restarts the wait for the next one. Without `--analytics-url` there is no collector: `409 invalid_state`. Answers with the counters.",
        "tags":["content"],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/AnalyticsPatch"}}}},
        "responses":{"200":{"description":"The counters, with `enabled` and `interval` as they are now.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/AnalyticsStatus"}}}},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"409":{"description":"`invalid_state`: the daemon has no `--analytics-url`.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/analytics/flush":{
       "post":{
        "operationId":"flushAnalytics",
        "summary":"Send what is pending now",
        "description":"Sends the pending events at once, in order, without waiting out a retry's backoff, and answers once nothing is pending (events the collector refuses with a 4xx count as `failed` and the flush goes on). When a delivery fails (the collector is down or answers 5xx) it answers `422 network_error` with the reason; the events stay pending and are retried as usual. Without `--analytics-url`: `409 invalid_state`. The collector's headers come from `--analytics-header \"Name: value\"` (repeatable).",
        "tags":["content"],
        "responses":{"200":{"description":"Nothing is pending: the counters.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/AnalyticsStatus"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"409":{"description":"`invalid_state`: the daemon has no `--analytics-url`.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"422":{"description":"`network_error`: a delivery failed; what is pending stays pending.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorReply"}}}},"default":{"$ref":"#/components/responses/Error"}}
       }
      }
    """#

    /// `GET /v1/queue`; the queue's commands are derived (OpenAPIDocument+Vocabulary.swift).
    static let getQueueOperation = #"""
       "get":{
        "operationId":"getQueue",
        "summary":"The queue",
        "description":"The playlist being played: its items, the index of the one playing and `loop`. Empty (`items` []) when there is none.",
        "tags":["content"],
        "responses":{"200":{"description":"The queue.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/QueueInfo"}}}},"401":{"$ref":"#/components/responses/Unauthorized"},"default":{"$ref":"#/components/responses/Error"}}
       }
    """#

    static let contentSchemas = #"""
       "QueueRequest":{
        "type":"object",
        "required":["items"],
        "additionalProperties":false,
        "properties":{"items":{"type":"array","maxItems":1000,"items":{"$ref":"#/components/schemas/OpenRequest"},"description":"Each item is the body of an open (`uri`, `start`, `contentId`, `subtitle`, …)."},"loop":{"type":["boolean","null"],"default":false,"description":"`null` is false."}}
       },
       "QueueUpdateRequest":{
        "type":"object",
        "required":["loop"],
        "additionalProperties":false,
        "properties":{"loop":{"type":"boolean","description":"Whether the queue starts again after its last item."}}
       },
       "QueueInfo":{
        "type":"object",
        "required":["items","index","loop"],
        "properties":{"items":{"type":"array","items":{"type":"object","required":["uri"],"properties":{"uri":{"type":"string"},"contentId":{"type":"string"}}}},"index":{"type":["integer","null"],"minimum":0,"description":"The item playing (or last played)."},"loop":{"type":"boolean"}}
       },
       "AnalyticsPatch":{
        "type":"object",
        "additionalProperties":false,
        "properties":{"enabled":{"type":["boolean","null"],"description":"False: record no new events."},"interval":{"type":["number","null"],"minimum":1,"maximum":86400,"description":"Seconds between `playing` events while playing."}}
       },
       "AnalyticsStatus":{
        "type":"object",
        "required":["enabled","interval","pending","sent","failed","dropped"],
        "properties":{"enabled":{"type":"boolean"},"url":{"type":"string","description":"The collector (`--analytics-url`)."},"interval":{"type":"number","description":"Seconds between `playing` events while playing (`--analytics-interval`, default 180)."},"pending":{"type":"integer","minimum":0},"sent":{"type":"integer","minimum":0},"failed":{"type":"integer","minimum":0},"dropped":{"type":"integer","minimum":0},"lastError":{"type":"string","description":"Why the last attempt failed, while events wait."}}
       },
       "AnalyticsUpdate":{
        "type":"object",
        "required":["seq","event","outcome","pending"],
        "description":"The `analytics` event: one delivery outcome. `retrying`: the collector was unreachable or answered 5xx, 408 or 429; the event is sent again after 1, 2, 4 … 60 s, the events behind it waiting so that order holds.",
        "properties":{"seq":{"type":"integer"},"event":{"type":"string","enum":["begin","playing","end"]},"outcome":{"type":"string","enum":["sent","failed","retrying"]},"reason":{"type":"string"},"pending":{"type":"integer","minimum":0}}
       },
       "AnalyticsEvent":{
        "type":"object",
        "required":["event","seq","time","uri","watched","rate"],
        "description":"What is POSTed to the collector as JSON: `begin` when playback is ready, `playing` every interval while playing and on each pause, `end` on stop, end of stream, an error or another open. Delivery is at least once: a collector de-duplicates on `seq`, which increases for the daemon's lifetime, across restarts.",
        "properties":{"event":{"type":"string","enum":["begin","playing","end"]},"seq":{"type":"integer","minimum":1},"time":{"type":"string","format":"date-time"},"contentId":{"type":"string"},"userId":{"type":"string"},"originalUrl":{"type":"string"},"uri":{"type":"string"},"position":{"type":"number"},"duration":{"type":"number"},"watched":{"type":"number","minimum":0,"description":"Seconds watched, across sessions (wall-clock time while playing)."},"rate":{"type":"number"}}
       }
    """#
}
