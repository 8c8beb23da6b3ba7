// libFuzzer target for the command decoder (Sources/ControlAPI), built by scripts/fuzz with
// `swiftc -sanitize=fuzzer,address -parse-as-library` together with every file of
// Sources/ControlAPI.
//
// The first byte picks a name of `Command.names` (modulo their count); the rest is the JSON
// body given to `Command.decode(name:arguments:)`, and, read as text (lossy UTF-8), a
// WebSocket frame given to `WebSocketCommand.decode(_:)`. A decoded command is encoded back
// to JSON, as the daemon does when it logs or forwards it.
import Foundation

private func encodePayload(_ command: Command) -> Int {
    let data: Data
    switch command {
    case let .open(r): data = JSONCoding.encode(r)
    case let .seek(r): data = JSONCoding.encode(r)
    case let .set(r): data = JSONCoding.encode(r)
    case let .variant(r): data = JSONCoding.encode(r)
    case let .audio(r): data = JSONCoding.encode(r)
    case let .subtitle(r): data = JSONCoding.encode(r)
    case let .pipStart(r): data = JSONCoding.encode(r)
    case let .pipUpdate(r): data = JSONCoding.encode(r)
    case let .watermark(r): data = JSONCoding.encode(r) + Data(r.color.text.utf8)
    case let .queueSet(r): data = JSONCoding.encode(r) + Data(r.items.map(\.requestHeaders.count).description.utf8)
    case .play, .pause, .stop, .live, .pipStop, .pipSwap, .watermarkRemove, .queueNext, .queuePrevious:
        data = Data()
    }
    return data.count + command.name.utf8.count
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let name = Command.names[Int(data[0]) % Command.names.count]
    let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
    var sink = 0
    do {
        sink &+= encodePayload(try Command.decode(name: name, arguments: Data(rest)))
    } catch {
        sink &+= error.message.utf8.count
    }
    switch WebSocketCommand.decode(String(decoding: rest, as: UTF8.self)) {
    case let .success(message): sink &+= encodePayload(message.command) + (message.id == nil ? 0 : 1)
    case let .failure(failure): sink &+= failure.error.message.utf8.count + (failure.id == nil ? 0 : 1)
    }
    withExtendedLifetime(sink) {}
    return 0
}
