extension OpenAPIDocument {
    /// The members of `paths` for the output stage: picture-in-picture, the watermark and the
    /// snapshot image.
    static let outputPaths = #"""
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
