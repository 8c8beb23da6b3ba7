// libFuzzer target for the subtitle parsers (Sources/Subtitles), built by scripts/fuzz with
// `swiftc -sanitize=fuzzer,address -parse-as-library` together with every file of
// Sources/Subtitles.
//
// The first byte picks the format (0: sniffed, 1: SRT, 2: SAMI, 3: WebVTT, modulo 4); the
// rest is the file, bytes as read from disk (so the BOM / UTF-16 / UTF-32 / Windows-1252
// decoding runs too). Every cue's `plainText` and `basicMarkup` is computed.
import Foundation

private let formats: [SubtitleFormat?] = [nil, .srt, .sami, .webvtt]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let format = formats[Int(data[0]) % formats.count]
    let body = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var sink = 0
    do {
        let document = try SubtitleDocument.parse(body, format: format)
        for cue in document.cues {
            sink &+= cue.plainText.utf8.count
            sink &+= cue.basicMarkup.utf8.count
            sink &+= (cue.id?.utf8.count ?? 0) + (cue.settings?.utf8.count ?? 0)
            sink &+= cue.start.isFinite && cue.end.isFinite ? 1 : 0
        }
    } catch let error as SubtitleError {
        sink &+= error.description.utf8.count
    } catch {
        fatalError("SubtitleDocument.parse threw something other than SubtitleError: \(error)")
    }
    withExtendedLifetime(sink) {}
    return 0
}
