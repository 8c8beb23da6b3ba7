import Foundation

/// One RGB pixel, 8 bits a channel, with the colour tests the output-stage tests need.
///
/// The thresholds are loose on purpose: the pixels come from a JPEG (chroma is subsampled,
/// edges ring) of video that went through limited-range YUV, so a "red" clip decodes to about
/// (237, 14, 13) and a green one to about (13, 235, 14) rather than pure primaries.
public struct RGB: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        (self.r, self.g, self.b) = (r, g, b)
    }

    public var description: String { "(\(r), \(g), \(b))" }

    private var ri: Int { Int(r) }
    private var gi: Int { Int(g) }
    private var bi: Int { Int(b) }

    /// Strong, saturated red: what a solid red clip decodes to.
    public var isRed: Bool { ri >= 150 && gi <= 90 && bi <= 90 && ri - max(gi, bi) >= 100 }
    /// Strong, saturated green.
    public var isGreen: Bool { gi >= 150 && ri <= 90 && bi <= 90 && gi - max(ri, bi) >= 100 }
    /// Strong, saturated blue.
    public var isBlue: Bool { bi >= 150 && ri <= 90 && gi <= 90 && bi - max(ri, gi) >= 100 }
    /// Near black: every channel at most 40.
    public var isBlack: Bool { max(ri, gi, bi) <= 40 }
    /// Near white: every channel at least 200.
    public var isWhite: Bool { min(ri, gi, bi) >= 200 }

    /// Bright and neutral: white text, even thin strokes averaged with the black around them.
    public var isLight: Bool { min(ri, gi, bi) >= 80 && max(ri, gi, bi) - min(ri, gi, bi) <= 50 }

    /// Red-tinted, however dark: anti-aliased red text blended over black, or a red edge a
    /// JPEG has smeared. Excludes black and grey.
    public var isReddish: Bool { ri >= 60 && ri - max(gi, bi) >= 40 }
    /// Green-tinted, however dark (see `isReddish`).
    public var isGreenish: Bool { gi >= 60 && gi - max(ri, bi) >= 40 }
    /// Blue-tinted, however dark (see `isReddish`).
    public var isBlueish: Bool { bi >= 60 && bi - max(ri, gi) >= 40 }

    /// One character for `FramePixels.art`: R G B (saturated), r g b (tinted), . black,
    /// W white, w light grey, + anything else.
    public var symbol: Character {
        if isBlack { return "." }
        if isRed { return "R" }
        if isGreen { return "G" }
        if isBlue { return "B" }
        if isWhite { return "W" }
        if isLight { return "w" }
        if isReddish { return "r" }
        if isGreenish { return "g" }
        if isBlueish { return "b" }
        return "+"
    }
}

/// A rectangle in fractions of the frame (x, y from the top-left corner), like the API's
/// `rect`: `FrameRect(x: 0.65, y: 0.65, width: 0.3, height: 0.3)`.
public struct FrameRect: Equatable, Sendable, CustomStringConvertible {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    public static let full = FrameRect(x: 0, y: 0, width: 1, height: 1)

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var centerX: Double { x + width / 2 }
    public var centerY: Double { y + height / 2 }

    /// The same rectangle shrunk on every side by `fraction` of its own width and height:
    /// `inset(0.2)` keeps the middle 60 %, away from the edges a JPEG blurs.
    public func inset(_ fraction: Double) -> FrameRect {
        FrameRect(x: x + width * fraction, y: y + height * fraction,
                  width: width * (1 - 2 * fraction), height: height * (1 - 2 * fraction))
    }

    /// The same rectangle grown on every side by `fraction` of its own size (clamped to the frame).
    public func outset(_ fraction: Double) -> FrameRect {
        let x0 = max(0, x - width * fraction), y0 = max(0, y - height * fraction)
        let x1 = min(1, maxX + width * fraction), y1 = min(1, maxY + height * fraction)
        return FrameRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px <= maxX && py >= y && py <= maxY
    }

    public func intersects(_ other: FrameRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// The API's JSON form: `{"x": …, "y": …, "width": …, "height": …}`.
    public var json: [String: Double] { ["x": x, "y": y, "width": width, "height": height] }

    public var description: String {
        String(format: "{x %.3f, y %.3f, w %.3f, h %.3f}", x, y, width, height)
    }
}

public struct FramePixelsError: Error, CustomStringConvertible {
    public let message: String
    /// gst-launch-1.0's stderr when it was the part that failed; empty otherwise.
    public let stderr: String

    public var description: String {
        stderr.isEmpty ? "FramePixels: \(message)" : "FramePixels: \(message)\ngst-launch-1.0 stderr:\n\(stderr)"
    }
}

/// The pixels of a JPEG (a `GET /v1/snapshot.jpg` answer) as RGB, decoded by gst-launch-1.0
/// (`jpegdec ! videoconvert`) so tests need no image library, and optionally scaled down.
///
/// Scaling down averages each block of source pixels, which smooths JPEG noise: a 640x360
/// snapshot read at the default 64x36 gives one pixel per 10x10 block, good for flat regions
/// (a PiP inset). It also dims thin strokes (text blends with what is behind it), so read
/// text at the JPEG's own size (`width: nil, height: nil`). Sample well inside regions
/// (`FrameRect.inset`) and count matches (`fraction(in:where:)`) rather than testing single
/// pixels at edges.
public struct FramePixels: Sendable {
    /// The decoded size.
    public let width: Int
    public let height: Int
    /// The JPEG's own size, from its SOF header.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// Packed RGB rows, top to bottom, `width * 3` bytes each (no padding).
    public let rgb: [UInt8]

    /// Decodes `jpeg` and scales it to `width` x `height`. Pass nil for one of them to keep
    /// the JPEG's aspect ratio, or for both to keep its size.
    public init(jpeg: Data, width: Int? = 64, height: Int? = 36) throws {
        guard let size = Self.jpegSize(jpeg) else {
            throw FramePixelsError(
                message: "not a JPEG (no SOF marker) - \(jpeg.count) bytes starting "
                    + jpeg.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " "),
                stderr: "")
        }
        let (w, h): (Int, Int)
        switch (width, height) {
        case let (w0?, h0?): (w, h) = (w0, h0)
        case let (w0?, nil): (w, h) = (w0, max(1, Int((Double(w0) * Double(size.height) / Double(size.width)).rounded())))
        case let (nil, h0?): (w, h) = (max(1, Int((Double(h0) * Double(size.width) / Double(size.height)).rounded())), h0)
        case (nil, nil): (w, h) = size
        }
        guard w > 0, h > 0, w <= 8192, h <= 8192 else {
            throw FramePixelsError(message: "bad decode size \(w)x\(h)", stderr: "")
        }
        self.width = w
        self.height = h
        self.sourceWidth = size.width
        self.sourceHeight = size.height
        self.rgb = try Self.decode(jpeg, sourceWidth: size.width, sourceHeight: size.height, width: w, height: h)
    }

    /// Pixels from packed RGB rows, for tests of the helpers themselves.
    public init(rgb: [UInt8], width: Int, height: Int) {
        precondition(rgb.count == width * height * 3, "rgb must hold width * height * 3 bytes")
        self.width = width
        self.height = height
        self.sourceWidth = width
        self.sourceHeight = height
        self.rgb = rgb
    }

    /// The width and height in a JPEG's first SOF (start of frame) segment, or nil.
    public static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var i = 2
        while i + 3 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            // SOF0…SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 8 < bytes.count else { return nil }
                let height = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                let width = Int(bytes[i + 7]) << 8 | Int(bytes[i + 8])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data before any SOF
            i += 2 + length
        }
        return nil
    }

    /// Decodes at the JPEG's own size with gst-launch-1.0, then box-averages down (or
    /// samples up) to `width` x `height` here: videoscale samples rather than averages when
    /// it shrinks, and would miss a thin stroke of text or keep one JPEG ringing pixel.
    private static func decode(_ jpeg: Data, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) throws -> [UInt8] {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("marquee-framepixels-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let input = scratch.appendingPathComponent("frame.jpg")
        let output = scratch.appendingPathComponent("frame.rgb")
        try jpeg.write(to: input)
        let pipeline = [
            "-q", "filesrc", "location=\(input.path)", "!", "jpegdec", "!", "videoconvert",
            "!", "video/x-raw,format=RGB", "!", "filesink", "location=\(output.path)",
        ]
        let result: (status: Int32, stdout: String, stderr: String)
        do {
            result = try runProcess("gst-launch-1.0", pipeline, timeout: 30)
        } catch {
            throw FramePixelsError(message: "\(error)", stderr: "")
        }
        guard result.status == 0 else {
            throw FramePixelsError(
                message: "gst-launch-1.0 exited with status \(result.status) decoding a \(jpeg.count)-byte JPEG",
                stderr: result.stderr.isEmpty ? result.stdout : result.stderr)
        }
        let raw = [UInt8](try Data(contentsOf: output))
        // GStreamer pads RGB rows to a multiple of 4 bytes.
        let row = sourceWidth * 3
        let stride = (row + 3) & ~3
        guard raw.count >= stride * (sourceHeight - 1) + row else {
            throw FramePixelsError(
                message: "decoded \(raw.count) bytes, expected \(stride * sourceHeight) for \(sourceWidth)x\(sourceHeight) RGB",
                stderr: result.stderr)
        }
        if width == sourceWidth, height == sourceHeight {
            if stride == row { return Array(raw.prefix(row * sourceHeight)) }
            var packed = [UInt8]()
            packed.reserveCapacity(row * sourceHeight)
            for y in 0..<sourceHeight { packed += raw[(y * stride)..<(y * stride + row)] }
            return packed
        }
        // Each output pixel is the mean of the source pixels it covers (at least one).
        func span(_ i: Int, _ out: Int, _ source: Int) -> Range<Int> {
            let lower = i * source / out
            let upper = max(lower + 1, (i + 1) * source / out)
            return lower..<min(source, upper)
        }
        var scaled = [UInt8](repeating: 0, count: width * height * 3)
        raw.withUnsafeBufferPointer { src in
            for oy in 0..<height {
                let ys = span(oy, height, sourceHeight)
                for ox in 0..<width {
                    let xs = span(ox, width, sourceWidth)
                    var (r, g, b) = (0, 0, 0)
                    for y in ys {
                        var i = y * stride + xs.lowerBound * 3
                        for _ in xs {
                            r += Int(src[i]); g += Int(src[i + 1]); b += Int(src[i + 2])
                            i += 3
                        }
                    }
                    let n = ys.count * xs.count
                    let o = (oy * width + ox) * 3
                    scaled[o] = UInt8(r / n); scaled[o + 1] = UInt8(g / n); scaled[o + 2] = UInt8(b / n)
                }
            }
        }
        return scaled
    }

    // MARK: Reading pixels

    public func pixel(x: Int, y: Int) -> RGB {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let i = (y * width + x) * 3
        return RGB(rgb[i], rgb[i + 1], rgb[i + 2])
    }

    /// The pixel at a point given in fractions of the frame (0...1).
    public func pixel(fx: Double, fy: Double) -> RGB {
        pixel(x: min(width - 1, max(0, Int(fx * Double(width)))), y: min(height - 1, max(0, Int(fy * Double(height)))))
    }

    /// The pixel index ranges whose centres lie inside `rect` (at least one pixel).
    private func ranges(in rect: FrameRect) -> (xs: ClosedRange<Int>, ys: ClosedRange<Int>) {
        let x0 = max(0, Int((rect.x * Double(width) - 0.5).rounded(.up)))
        let x1 = min(width - 1, Int((rect.maxX * Double(width) - 0.5).rounded(.down)))
        let y0 = max(0, Int((rect.y * Double(height) - 0.5).rounded(.up)))
        let y1 = min(height - 1, Int((rect.maxY * Double(height) - 0.5).rounded(.down)))
        guard x0 <= x1, y0 <= y1 else {
            let x = min(width - 1, max(0, Int(rect.centerX * Double(width))))
            let y = min(height - 1, max(0, Int(rect.centerY * Double(height))))
            return (x...x, y...y)
        }
        return (x0...x1, y0...y1)
    }

    /// Calls `body` with every pixel whose centre lies inside `rect`, row by row.
    public func forEachPixel(in rect: FrameRect = .full, _ body: (_ x: Int, _ y: Int, _ color: RGB) -> Void) {
        let (xs, ys) = ranges(in: rect)
        rgb.withUnsafeBufferPointer { p in
            for y in ys {
                var i = (y * width + xs.lowerBound) * 3
                for x in xs {
                    body(x, y, RGB(p[i], p[i + 1], p[i + 2]))
                    i += 3
                }
            }
        }
    }

    /// How many pixels lie inside `rect` (at least one: a rect thinner than a pixel counts
    /// the pixel at its centre).
    public func pixelCount(in rect: FrameRect = .full) -> Int {
        let (xs, ys) = ranges(in: rect)
        return xs.count * ys.count
    }

    /// The mean colour inside `rect`.
    public func average(in rect: FrameRect = .full) -> RGB {
        var (r, g, b, n) = (0, 0, 0, 0)
        forEachPixel(in: rect) { _, _, c in
            r += Int(c.r); g += Int(c.g); b += Int(c.b); n += 1
        }
        return RGB(UInt8(r / n), UInt8(g / n), UInt8(b / n))
    }

    /// How many pixels inside `rect` (the whole frame by default) satisfy `predicate`.
    public func count(in rect: FrameRect = .full, where predicate: (RGB) -> Bool) -> Int {
        var n = 0
        forEachPixel(in: rect) { _, _, c in if predicate(c) { n += 1 } }
        return n
    }

    /// The share (0...1) of pixels inside `rect` that satisfy `predicate`.
    public func fraction(in rect: FrameRect = .full, where predicate: (RGB) -> Bool) -> Double {
        Double(count(in: rect, where: predicate)) / Double(pixelCount(in: rect))
    }

    /// How many pixels whose centres lie outside `rect` satisfy `predicate`. Grow `rect` first
    /// (`outset`) to keep clear of its blurred edges.
    public func count(outside rect: FrameRect, where predicate: (RGB) -> Bool) -> Int {
        var n = 0
        forEachPixel { x, y, c in
            if !rect.contains(x: (Double(x) + 0.5) / Double(width), y: (Double(y) + 0.5) / Double(height)), predicate(c) { n += 1 }
        }
        return n
    }

    /// The share (0...1) of the pixels outside `rect` that satisfy `predicate` (1 when none lies outside).
    public func fraction(outside rect: FrameRect, where predicate: (RGB) -> Bool) -> Double {
        let outside = count(outside: rect) { _ in true }
        return outside == 0 ? 1 : Double(count(outside: rect, where: predicate)) / Double(outside)
    }

    /// True when at least `share` of the pixels inside `rect` satisfy `predicate`.
    public func mostly(_ predicate: (RGB) -> Bool, in rect: FrameRect, share: Double = 0.9) -> Bool {
        fraction(in: rect, where: predicate) >= share
    }

    /// The smallest rectangle (fractions of the frame, whole pixels) holding every pixel that
    /// satisfies `predicate`, or nil when none does.
    public func boundingBox(where predicate: (RGB) -> Bool) -> FrameRect? {
        var (x0, y0, x1, y1) = (width, height, -1, -1)
        forEachPixel { x, y, c in
            if predicate(c) { x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y) }
        }
        guard x1 >= 0 else { return nil }
        return FrameRect(x: Double(x0) / Double(width), y: Double(y0) / Double(height),
                         width: Double(x1 - x0 + 1) / Double(width), height: Double(y1 - y0 + 1) / Double(height))
    }

    /// The mean position (fractions of the frame, pixel centres) of the pixels that satisfy
    /// `predicate`, or nil when none does.
    public func centroid(where predicate: (RGB) -> Bool) -> (x: Double, y: Double)? {
        var (sx, sy, n) = (0.0, 0.0, 0)
        forEachPixel { x, y, c in
            if predicate(c) { sx += Double(x) + 0.5; sy += Double(y) + 0.5; n += 1 }
        }
        guard n > 0 else { return nil }
        return (sx / Double(n) / Double(width), sy / Double(n) / Double(height))
    }

    /// The frame as text, one character a pixel (see `RGB.symbol`), for failure messages.
    /// Frames wider than `maxColumns` are sampled.
    public func art(maxColumns: Int = 64) -> String {
        let step = max(1, (width + maxColumns - 1) / maxColumns)
        var lines: [String] = []
        for y in stride(from: 0, to: height, by: step) {
            lines.append(String(stride(from: 0, to: width, by: step).map { pixel(x: $0, y: y).symbol }))
        }
        return lines.joined(separator: "\n")
    }
}
