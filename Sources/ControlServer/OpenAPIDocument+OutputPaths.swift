extension OpenAPIDocument {
    /// The members of `paths` for the output stage: picture-in-picture, the watermark and the
    /// snapshot image.
    static let outputPaths = #"""
      "/v1/pip":{
       "post":{
        "operationId":"startPip",
        "summary":"Start picture-in-picture",
        "description":"Plays a second, independent source as an inset over the main video (WebSocket command `pip.start`). `rect` places it in fractions of the frame (default: the bottom-right corner, `{\"x\": 0.65, \"y\": 0.65, \"width\": 0.3, \"height\": 0.3}`). Its audio is muted unless `muted` is false. A running picture-in-picture is replaced. The URI is checked like `open`'s (`400 unsupported_uri`, `403 forbidden`, `404 not_found`); a source that fails or does not start in time later shows as `pip.state` `error` with the reason in `pip.error`. No main source is needed. The snapshot's `pip` shows it, and each change of it is sent as a `pip` event.",
        "tags":["output"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/PipStartRequest"},"examples":{"corner":{"value":{"uri":"file:///media/camera2.mp4"}},"placed":{"value":{"uri":"udp://239.1.1.2:5000","rect":{"x":0.05,"y":0.05,"width":0.25,"height":0.25},"muted":false}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"403":{"$ref":"#/components/responses/Forbidden"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "patch":{
        "operationId":"updatePip",
        "summary":"Move, resize or (un)mute the picture-in-picture",
        "description":"Changes `rect` (in fractions of the frame) and/or `muted`; at least one (WebSocket command `pip.update`). After a swap `rect` places the main video, which is then the inset. `409 no_pip` when no picture-in-picture runs.",
        "tags":["output"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/PipUpdateRequest"},"examples":{"move":{"value":{"rect":{"x":0.05,"y":0.65,"width":0.3,"height":0.3}}},"unmute":{"value":{"muted":false}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/NoPip"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "delete":{
        "operationId":"stopPip",
        "summary":"Stop picture-in-picture",
        "description":"Stops the PiP source and removes the inset; the snapshot's `pip` becomes null and a `pip` event with `null` follows (WebSocket command `pip.stop`). `409 no_pip` when no picture-in-picture runs.",
        "tags":["output"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/NoPip"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/pip/swap":{
       "post":{
        "operationId":"swapPip",
        "summary":"Swap the main video and the picture-in-picture",
        "description":"Swaps the two pictures (WebSocket command `pip.swap`): the PiP source fills the frame and the main video is drawn in `rect`; swapping again undoes it. `pip.swapped` says which way round they are. Audio stays with the main source unless the PiP is unmuted (`PATCH /v1/pip {\"muted\": false}`). `409 no_pip` when no picture-in-picture runs.",
        "tags":["output"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"409":{"$ref":"#/components/responses/NoPip"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/overlays/watermark":{
       "put":{
        "operationId":"setWatermark",
        "summary":"Set the watermark",
        "description":"Draws a text or a PNG image over the output, replacing any watermark: give exactly one of `text` or `image` (WebSocket command `watermark`). `size` is the height of the text or image as a fraction of the frame height (0.01 to 0.5, default 0.05); `position` is one of nine places in the frame, or `random`, which jumps to a new place within the frame every `interval` seconds (0.5 to 3600, default 10). A text's colour is `#RRGGBBAA` (default `#FFFFFFB3`, white at 70 %); an image's `opacity` is 0 to 1. The image is a local file checked like a source's (`403 forbidden` outside every `--media-root`, `404 not_found`); one that is not a PNG is `400 invalid_argument`. The snapshot's `watermark` shows it with every default filled in, and a `watermark` event is sent.",
        "tags":["output"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/WatermarkRequest"},"examples":{"text":{"value":{"text":"LIVE","position":"top-right","size":0.04,"color":"#FF0000CC"}},"image":{"value":{"image":"file:///srv/logos/channel.png","position":"random","interval":30,"opacity":0.6}}}}}},
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"403":{"$ref":"#/components/responses/Forbidden"},"404":{"$ref":"#/components/responses/NotFound"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       },
       "delete":{
        "operationId":"removeWatermark",
        "summary":"Remove the watermark",
        "description":"Removes the watermark; the snapshot's `watermark` becomes null and a `watermark` event with `null` follows (WebSocket command `watermark.remove`). Without a watermark it does nothing and is not an error.",
        "tags":["output"],
        "parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}],
        "responses":{"200":{"$ref":"#/components/responses/Snapshot"},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"408":{"$ref":"#/components/responses/Timeout"},"413":{"$ref":"#/components/responses/PayloadTooLarge"},"422":{"$ref":"#/components/responses/Unprocessable"},"default":{"$ref":"#/components/responses/Error"}}
       }
      },
      "/v1/snapshot.jpg":{
       "get":{
        "operationId":"getSnapshotImage",
        "summary":"The output frame as JPEG",
        "description":"The composed output frame (the main video with the picture-in-picture and overlays, as on screen) as a JPEG image, at the frame's own size unless `width` is given. Sent with `Cache-Control: no-store`. `503 no_video` while no video is on screen (for example when nothing is open, or the source has no video). At most 4 snapshots are encoded at once; more is `429 too_many_requests` (try again).",
        "tags":["output"],
        "parameters":[{"name":"width","in":"query","required":false,"schema":{"type":"integer","minimum":16,"maximum":3840},"description":"Scale the image to this width in pixels, 16 to 3840; the height follows the frame's aspect ratio. Anything else is `400 invalid_argument`."}],
        "responses":{"200":{"description":"The frame as JPEG.","headers":{"Cache-Control":{"schema":{"type":"string","const":"no-store"},"description":"Always `no-store`."}},"content":{"image/jpeg":{"schema":{"type":"string","contentMediaType":"image/jpeg"}}}},"400":{"$ref":"#/components/responses/BadRequest"},"401":{"$ref":"#/components/responses/Unauthorized"},"429":{"$ref":"#/components/responses/TooManyRequests"},"503":{"$ref":"#/components/responses/NoVideo"},"default":{"$ref":"#/components/responses/Error"}}
       }
      }
    """#
}
