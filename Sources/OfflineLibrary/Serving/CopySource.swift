import CGStreamer
import FoundationEssentials
import GStreamerSupport
import GStreamerKit
import PlayerCore
import TextSupport

/// A progressive (file) copy read inside the process by `marqueecopysrc` (copysrc.c) at
/// `marquee-copy://<token>`: qtdemux reads it in pull mode, as filesrc reads a local file,
/// instead of through the loopback server (push mode: a seek there is an upstream byte seek
/// and a new Range request). HLS copies stay on the loopback server.
///
/// The C side keeps a token → callbacks table behind its own lock; each published media is
/// retained by it until both `unpublish` and every element that started on it have let go,
/// so a copy removed while it plays stays readable until that pipeline stops (its file is
/// already open; a read that fails surfaces as a GStreamer read error).
public enum CopySource {
    /// Publishes `media` under a new random token; returns its `marquee-copy://` URI.
    public static func publish(_ media: any RandomAccessMedia) -> String {
        GStreamer.initialize()  // registers marqueecopysrc (once)
        let token = (0..<16).map { _ in String(printf: "%02x", UInt8.random(in: 0...255)) }.joined()
        let box = Unmanaged.passRetained(Box(media)).toOpaque()
        var source = CGstCopySource(read: copyRead, size: copySize, release: copyRelease, user_data: box)
        cgst_copy_src_publish(token, &source)
        return "\(ResolvedSource.localCopyScheme)://\(token)"
    }

    /// Forgets the copy at `uri`: new opens fail; a pipeline reading it keeps it until it stops.
    public static func unpublish(_ uri: String) {
        guard let token = token(in: uri) else { return }
        cgst_copy_src_unpublish(token)
    }

    /// The token of a `marquee-copy://` URI; nil for any other.
    public static func token(in uri: String) -> String? {
        let prefix = ResolvedSource.localCopyScheme + "://"
        guard uri.hasPrefix(prefix), uri.count > prefix.count else { return nil }
        return String(uri.dropFirst(prefix.count))
    }

    final class Box: @unchecked Sendable {
        let media: any RandomAccessMedia
        init(_ media: any RandomAccessMedia) { self.media = media }
    }
}

// C callbacks: streaming threads call them; RandomAccessMedia is thread-safe.
private func copyRead(_ userData: UnsafeMutableRawPointer?, _ offset: Int64, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int64 {
    guard let userData, let buffer else { return -1 }
    let box = Unmanaged<CopySource.Box>.fromOpaque(userData).takeUnretainedValue()
    do {
        return Int64(try box.media.read(at: offset, into: UnsafeMutableRawBufferPointer(start: buffer, count: size)))
    } catch {
        return -1
    }
}

private func copySize(_ userData: UnsafeMutableRawPointer?) -> Int64 {
    guard let userData else { return -1 }
    return Unmanaged<CopySource.Box>.fromOpaque(userData).takeUnretainedValue().media.size
}

private func copyRelease(_ userData: UnsafeMutableRawPointer?) {
    guard let userData else { return }
    Unmanaged<CopySource.Box>.fromOpaque(userData).release()
}
