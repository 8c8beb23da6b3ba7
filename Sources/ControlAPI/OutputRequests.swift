/// The requests and state of the output stage: picture-in-picture, the watermark and the
/// subtitle style. Positions and sizes are fractions of the output frame, so a script works
/// the same on a 480p preview and a 4K panel.

/// A colour written `#RRGGBBAA` (or `#RRGGBB`, opaque). Kept as normalised text on the wire.
public struct RGBAColor: Codable, Sendable, Equatable {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    public init?(text: String) {
        guard text.hasPrefix("#") else { return nil }
        let hex = text.dropFirst()
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        let rgba = hex.count == 6 ? value << 8 | 0xFF : value
        self.init(red: UInt8(rgba >> 24 & 0xFF), green: UInt8(rgba >> 16 & 0xFF), blue: UInt8(rgba >> 8 & 0xFF), alpha: UInt8(rgba & 0xFF))
    }

    public var text: String {
        "#" + [red, green, blue, alpha].map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// GStreamer's text overlays take big-endian ARGB.
    public var argb: UInt32 { UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let color = RGBAColor(text: text) else {
            throw APIError(.invalidArgument, "'\(text)' is not a colour: write #RRGGBBAA or #RRGGBB")
        }
        self = color
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }
}

/// A rectangle in fractions of the output frame: `{"x": 0.65, "y": 0.65, "width": 0.3, "height": 0.3}`.
public struct Rect: Codable, Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The bottom-right corner inset a new PiP gets when no `rect` is given.
    public static let defaultInset = Rect(x: 0.65, y: 0.65, width: 0.3, height: 0.3)
    public static let fullFrame = Rect(x: 0, y: 0, width: 1, height: 1)

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: ["x", "y", "width", "height"])
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y),
                  width: try c.decode(Double.self, forKey: .width), height: try c.decode(Double.self, forKey: .height))
        // Rounding in clients (0.7 + 0.3) may overshoot 1 by an ulp: allow a hair.
        let slack = 1e-9
        guard [x, y, width, height].allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), width > 0, height > 0,
              x + width <= 1 + slack, y + height <= 1 + slack else {
            throw APIError(.invalidArgument, "'rect' is in fractions of the frame: x, y >= 0, width, height > 0, x + width <= 1, y + height <= 1")
        }
    }
}

/// POST /v1/pip: a second, independent source drawn as an inset over the main video.
public struct PipStartRequest: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["uri", "rect", "muted"]
    public var uri: String
    public var rect: Rect?
    /// The inset's audio is muted unless this is false.
    public var muted: Bool?

    public init(uri: String, rect: Rect? = nil, muted: Bool? = nil) {
        self.uri = uri
        self.rect = rect
        self.muted = muted
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uri = try c.decode(String.self, forKey: .uri)
        rect = try c.decodeIfPresent(Rect.self, forKey: .rect)
        muted = try c.decodeIfPresent(Bool.self, forKey: .muted)
        guard !uri.trimmingWhitespace().isEmpty else {
            throw APIError(.invalidArgument, "'uri' must not be empty")
        }
        try checkURILength(uri, field: "uri")
    }
}

/// PATCH /v1/pip: move or resize the inset, or (un)mute it; at least one field.
public struct PipUpdateRequest: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["rect", "muted"]
    public var rect: Rect?
    public var muted: Bool?

    public init(rect: Rect? = nil, muted: Bool? = nil) {
        self.rect = rect
        self.muted = muted
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rect = try c.decodeIfPresent(Rect.self, forKey: .rect)
        muted = try c.decodeIfPresent(Bool.self, forKey: .muted)
        guard rect != nil || muted != nil else { throw APIError(.invalidArgument, "give 'rect' or 'muted'") }
    }
}

/// The inset as the snapshot and `pip` events show it.
public struct PipInfo: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case opening, playing, paused, buffering, ended, error }
    public var uri: String
    public var state: State
    /// Where the inset is drawn. After a swap the main video is drawn here instead.
    public var rect: Rect
    public var muted: Bool
    /// True when the PiP source fills the frame and the main video is the inset.
    public var swapped: Bool
    public var error: APIError?

    public init(uri: String, state: State, rect: Rect, muted: Bool, swapped: Bool, error: APIError? = nil) {
        self.uri = uri
        self.state = state
        self.rect = rect
        self.muted = muted
        self.swapped = swapped
        self.error = error
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uri, forKey: .uri)
        try c.encode(state, forKey: .state)
        try c.encode(rect, forKey: .rect)
        try c.encode(muted, forKey: .muted)
        try c.encode(swapped, forKey: .swapped)
        try c.encode(error, forKey: .error)
    }
}

/// Where a watermark sits. `random` jumps to a new place every `interval` seconds.
public enum WatermarkPosition: String, Codable, Sendable, CaseIterable {
    case topLeft = "top-left", top, topRight = "top-right", left, center, right
    case bottomLeft = "bottom-left", bottom, bottomRight = "bottom-right", random
}

/// PUT /v1/overlays/watermark: a text or a PNG image; the whole watermark is replaced.
public struct WatermarkRequest: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["text", "image", "size", "color", "position", "interval", "opacity"]
    public static let sizeRange = 0.01...0.5
    public static let intervalRange = 0.5...3600.0
    public static let defaultSize = 0.05
    public static let defaultInterval = 10.0
    public static let defaultColor = RGBAColor(red: 255, green: 255, blue: 255, alpha: 0xB3)

    public var text: String?
    /// A local PNG image (`file://` URI or path).
    public var image: String?
    /// Text height, or image height, as a fraction of the frame height.
    public var size: Double
    public var color: RGBAColor
    public var position: WatermarkPosition
    /// Seconds between jumps in `random` mode.
    public var interval: Double
    /// 0 (invisible) to 1; for images (a text's opacity is its colour's alpha).
    public var opacity: Double

    public init(text: String? = nil, image: String? = nil, size: Double = defaultSize, color: RGBAColor = defaultColor,
                position: WatermarkPosition = .bottomRight, interval: Double = defaultInterval, opacity: Double = 1) {
        self.text = text
        self.image = image
        self.size = size
        self.color = color
        self.position = position
        self.interval = interval
        self.opacity = opacity
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        image = try c.decodeIfPresent(String.self, forKey: .image)
        size = try c.decodeIfPresent(Double.self, forKey: .size) ?? Self.defaultSize
        color = try c.decodeIfPresent(RGBAColor.self, forKey: .color) ?? Self.defaultColor
        position = try c.decodeIfPresent(WatermarkPosition.self, forKey: .position) ?? .bottomRight
        interval = try c.decodeIfPresent(Double.self, forKey: .interval) ?? Self.defaultInterval
        opacity = try c.decodeIfPresent(Double.self, forKey: .opacity) ?? 1
        guard (text == nil) != (image == nil) else {
            throw APIError(.invalidArgument, "give exactly one of 'text' or 'image'")
        }
        try checkURILength(image, field: "image")
        // Counted in Unicode scalars, as JSON Schema's maxLength counts (openapi.json).
        if let text, text.isEmpty || text.unicodeScalars.count > 200 {
            throw APIError(.invalidArgument, "'text' must be 1 to 200 characters")
        }
        guard Self.sizeRange.contains(size) else {
            throw APIError(.invalidArgument, "'size' is a fraction of the frame height, 0.01 to 0.5 (0.05 is one twentieth)")
        }
        guard Self.intervalRange.contains(interval) else {
            throw APIError(.invalidArgument, "'interval' must be 0.5 to 3600 seconds")
        }
        guard (0...1).contains(opacity) else { throw APIError(.invalidArgument, "'opacity' must be 0 to 1") }
    }
}

/// How external and embedded subtitles are drawn. `PATCH /v1/player {"subtitleStyle": {...}}`
/// changes any subset, applied to the cue on screen at once.
public struct SubtitleStyle: Codable, Sendable, Equatable {
    public enum Alignment: String, Codable, Sendable { case top, center, bottom }
    public static let fontSizeRange = 0.01...0.5

    /// Text height as a fraction of the frame height.
    public var fontSize: Double = 0.05
    public var color = RGBAColor(red: 255, green: 255, blue: 255)
    public var align: Alignment = .bottom

    public init() {}

    public mutating func merge(_ patch: SubtitleStylePatch) {
        fontSize = patch.fontSize ?? fontSize
        color = patch.color ?? color
        align = patch.align ?? align
    }
}

public struct SubtitleStylePatch: Codable, Sendable, Equatable {
    public var fontSize: Double?
    public var color: RGBAColor?
    public var align: SubtitleStyle.Alignment?

    public init(fontSize: Double? = nil, color: RGBAColor? = nil, align: SubtitleStyle.Alignment? = nil) {
        self.fontSize = fontSize
        self.color = color
        self.align = align
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: ["fontSize", "color", "align"])
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fontSize = try c.decodeIfPresent(Double.self, forKey: .fontSize)
        color = try c.decodeIfPresent(RGBAColor.self, forKey: .color)
        align = try c.decodeIfPresent(SubtitleStyle.Alignment.self, forKey: .align)
        if let fontSize, !SubtitleStyle.fontSizeRange.contains(fontSize) {
            throw APIError(.invalidArgument, "'fontSize' is a fraction of the frame height, 0.01 to 0.5 (0.05 is one twentieth)")
        }
    }
}

/// The subtitle cue on screen, in the player's timeline. Tags are removed and entities
/// decoded; math written between `$$` is left for the dashboard to render.
public struct Cue: Codable, Sendable, Equatable {
    public var text: String
    public var start: Double
    public var end: Double
    public init(text: String, start: Double, end: Double) {
        self.text = text
        self.start = start
        self.end = end
    }
}
