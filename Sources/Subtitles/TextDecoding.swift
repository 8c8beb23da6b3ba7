import FoundationEssentials

/// Turns subtitle bytes into text.
///
/// Detection is by byte order mark only: `EF BB BF` UTF-8, `FF FE 00 00` UTF-32 LE,
/// `00 00 FE FF` UTF-32 BE, `FF FE` UTF-16 LE, `FE FF` UTF-16 BE. Without a BOM the bytes are
/// UTF-8 when they are valid UTF-8 and otherwise Windows-1252 (a superset of Latin-1 for
/// printable text; the five code points Windows-1252 leaves undefined map to the C1 controls,
/// as in Latin-1). Invalid UTF-16/UTF-32 units become U+FFFD. The BOM is not part of the text.
///
/// Bytes that are not UTF-8 are CP949 (Korean, `KoreanLegacyText`) before Windows-1252 when
/// they decode as CP949 and either a charset says so (`charset`: an HTTP Content-Type's; or
/// the file's own `<META … charset=…>`), or the viewer asked for Korean (`language` `ko`), or
/// they look like Korean text by themselves (`KoreanLegacyText.looksKorean`).
public enum TextDecoding {
    public enum Encoding: String, Sendable, Equatable {
        case utf8, utf16LittleEndian, utf16BigEndian, utf32LittleEndian, utf32BigEndian, cp949, windows1252
    }

    public static func decode(_ data: Data, charset: String? = nil, language: String? = nil) -> (text: String, encoding: Encoding) {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return (String(decoding: bytes.dropFirst(3), as: UTF8.self), .utf8)
        }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) {
            return (utf32(bytes.dropFirst(4), bigEndian: false), .utf32LittleEndian)
        }
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            return (utf32(bytes.dropFirst(4), bigEndian: true), .utf32BigEndian)
        }
        if bytes.starts(with: [0xFF, 0xFE]) {
            return (utf16(bytes.dropFirst(2), bigEndian: false), .utf16LittleEndian)
        }
        if bytes.starts(with: [0xFE, 0xFF]) {
            return (utf16(bytes.dropFirst(2), bigEndian: true), .utf16BigEndian)
        }
        if let text = String(validating: bytes, as: UTF8.self) {
            return (text, .utf8)
        }
        if mayBeKorean(bytes, charset: charset, language: language), let text = KoreanLegacyText.decode(bytes) {
            return (text, .cp949)
        }
        return (windows1252(bytes), .windows1252)
    }

    private static func mayBeKorean(_ bytes: [UInt8], charset: String?, language: String?) -> Bool {
        // A charset named is believed: a Windows-1252 file is not read as Korean because the
        // viewer asked for Korean. Either naming Korean is enough: servers label files they
        // know nothing about (`text/plain; charset=iso-8859-1`), the file's META is its author's.
        let declared = [charset, KoreanLegacyText.declaredCharset(in: bytes)].compactMap { $0 }
        if !declared.isEmpty { return declared.contains(where: KoreanLegacyText.isKoreanCharset) }
        if let language, LanguageTag.matches("ko", language) { return true }
        return KoreanLegacyText.looksKorean(bytes)
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? (a << 8 | b) : (b << 8 | a))
            i += 2
        }
        var text = String(decoding: units, as: UTF16.self)
        if i < bytes.endIndex { text.append("\u{FFFD}") }  // odd trailing byte
        return text
    }

    private static func utf32(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        var i = bytes.startIndex
        while i + 3 < bytes.endIndex {
            let b = (UInt32(bytes[i]), UInt32(bytes[i + 1]), UInt32(bytes[i + 2]), UInt32(bytes[i + 3]))
            let value = bigEndian ? (b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3) : (b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0)
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            i += 4
        }
        if i < bytes.endIndex { scalars.append("\u{FFFD}") }
        return String(scalars)
    }

    /// Windows-1252 code points for bytes 0x80–0x9F (0 = undefined, kept as the C1 control).
    private static let cp1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]

    private static func windows1252(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            var value = UInt32(byte)
            if byte >= 0x80 && byte <= 0x9F {
                let mapped = cp1252High[Int(byte - 0x80)]
                if mapped != 0 { value = mapped }
            }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// Splits text into lines at CRLF, CR or LF. A final line terminator does not produce an
    /// extra empty line.
    static func lines(_ text: String) -> [String] {
        var result: [String] = []
        var current = String.UnicodeScalarView()
        var previousWasCR = false
        var endedWithTerminator = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                result.append(String(current))
                current = String.UnicodeScalarView()
                endedWithTerminator = true
            } else {
                current.append(scalar)
                endedWithTerminator = false
            }
        }
        if !text.isEmpty && !endedWithTerminator {
            result.append(String(current))
        }
        return result
    }
}
