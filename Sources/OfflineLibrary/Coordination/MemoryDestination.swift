import FoundationEssentials

/// A download kept in memory: an HLS item's playlists while it is planned (small texts,
/// bounded by `limit`; never media).
final class MemoryDestination: DownloadDestination {
    static let limit = 16 << 20
    private(set) var data = Data()
    private(set) var storedBytes: Int64 = 0
    var pendingBytes: Int64 { Int64(data.count) - storedBytes }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard data.count + bytes.count <= Self.limit else {
            throw DownloadFailure(code: "invalid_source", message: "a playlist larger than \(Self.limit >> 20) MiB")
        }
        data.append(contentsOf: bytes)
    }

    func commit() throws { storedBytes = Int64(data.count) }

    func restart() throws {
        data.removeAll()
        storedBytes = 0
    }
}
