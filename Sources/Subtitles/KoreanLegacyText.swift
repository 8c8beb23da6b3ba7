#if canImport(Glibc)
import Glibc
#endif

/// Korean subtitle files from before UTF-8 (most SAMI files made for Korean players) are
/// CP949: EUC-KR (KS X 1001, two bytes 0xA1–0xFE per Hangul syllable or Hanja) extended by
/// Microsoft's Unified Hangul Code (the other 8,822 syllables, trail bytes from 0x41). glibc's
/// iconv converts it; no package is needed.
enum KoreanLegacyText {
    /// Charset names that mean CP949 or its EUC-KR subset (as in `<META charset=…>` and
    /// HTTP Content-Type), lowercased.
    static let charsetNames: Set<String> = [
        "euc-kr", "euckr", "cp949", "ms949", "windows-949", "x-windows-949", "ks_c_5601-1987", "ks_c_5601",
        "ksc5601", "ksc_5601", "korean", "uhc", "csksc56011987", "iso-ir-149",
    ]

    static func isKoreanCharset(_ name: String) -> Bool {
        charsetNames.contains(name.lowercased())
    }

    /// The bytes as CP949, or nil when they are not CP949 (an invalid or cut sequence):
    /// iconv stops there, and half a file of mojibake is worse than Windows-1252.
    static func decode(_ bytes: [UInt8]) -> String? {
        #if canImport(Glibc)
        let converter = iconv_open("UTF-8", "CP949")
        guard converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        // A CP949 character is one or two bytes and becomes at most three bytes of UTF-8.
        var output = [CChar](repeating: 0, count: bytes.count * 2 + 4)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = inBuffer.baseAddress, inLeft = inBuffer.count
                var outPointer = outBuffer.baseAddress, outLeft = outBuffer.count
                guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        guard let written else { return nil }
        return String(validating: output.prefix(written).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return nil
        #endif
    }

    /// Whether bytes that are not UTF-8 and declare no charset look like Korean text in
    /// CP949, without anyone saying so. Conservative: Windows-1252 text whose accented capitals
    /// meet ("ÀÉ", bytes C0 C9) also pairs into CP949 syllables, but Western text puts a
    /// space, punctuation or an ASCII letter after most accented letters ("é " is E9 20, no
    /// CP949 sequence) and so does not decode at all. So: at least two two-byte characters,
    /// all of them in CP949's lead range, and nine in ten of them KS X 1001 Hangul syllables
    /// (lead B0–C8, trail A1–FE: what EUC-KR Korean text is made of; the UHC extension's
    /// trail bytes are ASCII letters, which Latin text gives too).
    static func looksKorean(_ bytes: [UInt8]) -> Bool {
        var pairs = 0, hangul = 0
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            guard lead >= 0x80 else { i += 1; continue }
            guard lead >= 0x81, lead <= 0xFE, i + 1 < bytes.count else { return false }
            let trail = bytes[i + 1]
            pairs += 1
            if (0xB0...0xC8).contains(lead), (0xA1...0xFE).contains(trail) { hangul += 1 }
            i += 2
        }
        return pairs >= 2 && hangul * 10 >= pairs * 9
    }

    /// The charset a SAMI/HTML head declares (`<META charset="euc-kr">`,
    /// `content="text/html; charset=ks_c_5601-1987"`), from its first 4 KiB read as ASCII.
    static func declaredCharset(in bytes: [UInt8]) -> String? {
        let head = bytes.prefix(4096).map { $0 < 0x80 ? Character(Unicode.Scalar($0)) : " " }
        let text = String(head).lowercased()
        guard let found = text.firstRange(of: "charset") else { return nil }
        let after = text[found.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let name = after.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }
}
