extension OpenAPIDocument {
    /// The members of `components.schemas` for the output stage: picture-in-picture, the
    /// watermark and subtitles (ControlAPI's OutputRequests.swift).
    static let outputSchemas = #"""
       "Color":{"type":"string","pattern":"^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$","description":"A colour in hexadecimal: `#RRGGBBAA` (red, green, blue, alpha; alpha `FF` is opaque, `00` invisible) or `#RRGGBB` (opaque). Replies write `#RRGGBBAA` in upper case. Anything else is `400 invalid_argument`.","examples":["#FFFFFFB3","#FFCC00"]},
       "Rect":{
        "type":"object",
        "required":["x","y","width","height"],
        "additionalProperties":false,
        "description":"A rectangle in fractions of the output frame, from its top-left corner: `x` and `width` are fractions of the frame width, `y` and `height` of the frame height, so `{\"x\": 0.65, \"y\": 0.65, \"width\": 0.3, \"height\": 0.3}` is the bottom-right corner inset whatever the resolution. The rectangle must lie inside the frame: `x + width <= 1` and `y + height <= 1` (`400 invalid_argument` otherwise).",
        "properties":{"x":{"type":"number","minimum":0,"maximum":1,"description":"Left edge, fraction of the frame width."},"y":{"type":"number","minimum":0,"maximum":1,"description":"Top edge, fraction of the frame height."},"width":{"type":"number","exclusiveMinimum":0,"maximum":1,"description":"Fraction of the frame width."},"height":{"type":"number","exclusiveMinimum":0,"maximum":1,"description":"Fraction of the frame height."}},
        "examples":[{"x":0.65,"y":0.65,"width":0.3,"height":0.3}]
       },
       "PipStartRequest":{
        "type":"object",
        "required":["uri"],
        "additionalProperties":false,
        "description":"A second, independent source drawn as an inset over the main video. `rect` or `muted` sent as `null` count as not sent.",
        "properties":{"uri":{"$ref":"#/components/schemas/SourceURI","description":"The inset's source, in the forms `open` takes (a `file://` URI or a path, an HLS URL, a live source). Must not be blank."},"rect":{"oneOf":[{"$ref":"#/components/schemas/Rect"},{"type":"null"}],"description":"Where the inset is drawn, in fractions of the frame. Default: the bottom-right corner, `{\"x\": 0.65, \"y\": 0.65, \"width\": 0.3, \"height\": 0.3}`.","default":{"x":0.65,"y":0.65,"width":0.3,"height":0.3}},"muted":{"type":["boolean","null"],"default":true,"description":"The inset's audio is muted unless this is false."}}
       },
       "PipUpdateRequest":{
        "type":"object",
        "additionalProperties":false,
        "description":"Move or resize the inset, or (un)mute it; at least one field that is not `null` (an empty body is `400 invalid_argument`).",
        "properties":{"rect":{"oneOf":[{"$ref":"#/components/schemas/Rect"},{"type":"null"}],"description":"The new place of the inset, in fractions of the frame. After a swap the main video is drawn there."},"muted":{"type":["boolean","null"],"description":"Mute or unmute the PiP source's audio."}},
        "anyOf":[{"required":["rect"],"properties":{"rect":{"type":"object"}}},{"required":["muted"],"properties":{"muted":{"type":"boolean"}}}]
       },
       "PipState":{"type":"string","enum":["opening","playing","paused","buffering","ended","error"],"description":"The state of the PiP source."},
       "PipInfo":{
        "type":"object",
        "required":["uri","state","rect","muted","swapped","error"],
        "description":"The picture-in-picture, as the snapshot's `pip` and the `pip` event show it.",
        "properties":{"uri":{"type":"string"},"state":{"$ref":"#/components/schemas/PipState"},"rect":{"$ref":"#/components/schemas/Rect","description":"Where the inset is drawn, in fractions of the frame. After a swap the main video is drawn here instead."},"muted":{"type":"boolean","description":"Whether the PiP source's audio is muted (true unless asked otherwise)."},"swapped":{"type":"boolean","description":"True when the PiP source fills the frame and the main video is the inset."},"error":{"oneOf":[{"$ref":"#/components/schemas/Error"},{"type":"null"}],"description":"Why the PiP source failed (state `error`); null otherwise."}}
       },
       "WatermarkPosition":{"type":"string","enum":["top-left","top","top-right","left","center","right","bottom-left","bottom","bottom-right","random"],"description":"Where the watermark sits in the frame; `random` jumps to a new place within the frame every `interval` seconds."},
       "WatermarkRequest":{
        "type":"object",
        "additionalProperties":false,
        "description":"A text or a PNG image drawn over the output: exactly one of `text` or `image` (the other left out or `null`). The whole watermark is replaced by each request. Any other field sent as `null` takes its default.",
        "properties":{"text":{"type":["string","null"],"minLength":1,"maxLength":200,"description":"The text, 1 to 200 characters."},"image":{"type":["string","null"],"minLength":1,"maxLength":8192,"description":"A local PNG image: a path or a `file://` URI, under a `--media-root` when there are any; at most 8192 bytes of UTF-8."},"size":{"type":["number","null"],"minimum":0.01,"maximum":0.5,"default":0.05,"description":"The text's height, or the image's height, as a fraction of the frame height (0.05 is one twentieth)."},"color":{"oneOf":[{"$ref":"#/components/schemas/Color"},{"type":"null"}],"default":"#FFFFFFB3","description":"The text's colour; its alpha is the text's opacity. Default white at 70 %."},"position":{"oneOf":[{"$ref":"#/components/schemas/WatermarkPosition"},{"type":"null"}],"default":"bottom-right"},"interval":{"type":["number","null"],"minimum":0.5,"maximum":3600,"default":10,"description":"Seconds between jumps when `position` is `random`."},"opacity":{"type":["number","null"],"minimum":0,"maximum":1,"default":1,"description":"The image's opacity, 0 (invisible) to 1 (a text's opacity is its colour's alpha)."}},
        "oneOf":[{"required":["text"],"properties":{"text":{"type":"string"},"image":{"type":"null"}}},{"required":["image"],"properties":{"image":{"type":"string"},"text":{"type":"null"}}}],
        "examples":[{"text":"LIVE","position":"top-right","size":0.04,"color":"#FFFFFFB3"},{"image":"/srv/logos/channel.png","position":"random","interval":30,"opacity":0.6}]
       },
       "Watermark":{
        "description":"The watermark as drawn (the snapshot's `watermark`, the `watermark` event): the request with every default filled in. `text` or `image`, whichever was given, is present.",
        "allOf":[{"$ref":"#/components/schemas/WatermarkRequest"}],
        "required":["size","color","position","interval","opacity"]
       },
       "SubtitleAlignment":{"type":"string","enum":["top","center","bottom"],"description":"Where subtitle cues are placed vertically."},
       "SubtitleStyle":{
        "type":"object",
        "required":["fontSize","color","align"],
        "description":"How subtitles (external files and embedded tracks) are drawn.",
        "properties":{"fontSize":{"type":"number","minimum":0.01,"maximum":0.5,"default":0.05,"description":"Text height as a fraction of the frame height."},"color":{"$ref":"#/components/schemas/Color","default":"#FFFFFFFF"},"align":{"$ref":"#/components/schemas/SubtitleAlignment","default":"bottom"}}
       },
       "SubtitleStylePatch":{
        "type":"object",
        "additionalProperties":false,
        "description":"Any subset of the subtitle style (`PATCH /v1/player {\"subtitleStyle\": {...}}`); what is not given (or `null`) is kept. Applied to the cue on screen at once.",
        "properties":{"fontSize":{"type":["number","null"],"minimum":0.01,"maximum":0.5,"description":"Text height as a fraction of the frame height (0.05 is one twentieth)."},"color":{"oneOf":[{"$ref":"#/components/schemas/Color"},{"type":"null"}]},"align":{"oneOf":[{"$ref":"#/components/schemas/SubtitleAlignment"},{"type":"null"}]}}
       },
       "Cue":{
        "type":"object",
        "required":["text","start","end"],
        "description":"The subtitle cue on screen. Markup tags are removed and entities decoded; math written between `$$` is left as is for the client to render.",
        "properties":{"text":{"type":"string"},"start":{"type":"number","description":"When the cue appears, seconds in the player's timeline (as `position`)."},"end":{"type":"number","description":"When the cue goes, seconds in the player's timeline."}}
       }
    """#
}
