#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import TextSupport

/// The `deviceId` heartbeats carry: a random UUID made once and kept in `<data-dir>/device-id`
/// (mode 0600), so the session server sees the same device across restarts. Not a secret (it
/// names the device, it unlocks nothing), but the daemon's own: nobody else needs to read it.
public enum DeviceIdentity {
    public static let fileName = "device-id"

    /// The id in `folder`, made there when missing. Without a folder, or when the file cannot
    /// be read or made, an id for this run only, with one log line saying so (playback must
    /// not depend on the disk).
    public static func loadOrCreate(in folder: String?) -> String {
        let log = Logger(category: "session")
        guard let folder else {
            log.warning("no data directory: the device id is this run's only")
            return UUID().uuidString.lowercased()
        }
        let path = folder + "/" + fileName
        do {
            if let id = try read(path) { return id }
            try create(at: path)
            if let id = try read(path) { return id }
            throw IdentityError(reason: "vanished after it was made")
        } catch {
            log.warning("the device id cannot be kept; this run's is used", ["path": path, "error": "\(error)"])
            return UUID().uuidString.lowercased()
        }
    }

    private struct IdentityError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The id, nil when the file does not exist; throws when it exists but is not an id.
    private static func read(_ path: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw IdentityError(reason: "cannot be read") }
            return nil
        }
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
        guard UUID(uuidString: text) != nil else { throw IdentityError(reason: "does not hold a UUID") }
        return text
    }

    /// Writes a new id to a temporary file (O_EXCL, 0600) and links it into place: a link
    /// never replaces an id another daemon made meanwhile (that one is then read).
    private static func create(at path: String) throws {
        let temporary = "\(path).\(getpid()).tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw IdentityError(reason: "cannot be created: errno \(errno)") }
        defer { unlink(temporary) }
        let bytes = Array((UUID().uuidString.lowercased() + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, 0o600)  // umask can only clear bits of 0600
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced else { throw IdentityError(reason: "cannot be written") }
        if link(temporary, path) != 0, errno != EEXIST {
            guard rename(temporary, path) == 0 else { throw IdentityError(reason: "cannot be put in place: errno \(errno)") }
        }
    }
}
