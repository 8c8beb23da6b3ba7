import FoundationEssentials
import Storage

/// What the library's worker thread tells the GLib side about a download, in order.
enum WorkerReport: Sendable {
    /// Bytes durably stored (after a commit), and the total once known.
    case progress(id: String, stored: Int64, total: Int64?)
    /// An HLS item's files, once its playlists are fetched and planned.
    case planned(id: String, files: [LibraryFileRecord])
    /// One file of an HLS item: bytes stored, and whether it is whole.
    case fileStored(id: String, name: String, stored: Int64, complete: Bool)
    /// A fault the download rides out: it tries again after `delay`.
    case retrying(id: String, failure: DownloadFailure, delay: Double)
    /// Whole, and every chunk's checksum matched on reading it back.
    case completed(id: String, stored: Int64)
    case failed(id: String, failure: DownloadFailure)
}
