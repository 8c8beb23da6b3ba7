#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// The device key: the one secret kept in the clear on disk, in `<data-dir>/device.key`
/// (32 raw bytes, mode 0600) or in the file `--key-file PATH` names. It wraps every item's
/// media key and sealed headers (see `KeyWrap`); without it the library's files are noise.
///
/// Both paths refuse a file of the wrong size (a truncated or foreign file would silently make
/// every item unreadable) and a file group or others may access (a key anyone can read
/// protects nothing; anyone who can write it can swap it). Neither path ever rewrites an
/// existing file.
public struct DeviceKey: Sendable {
    public static let fileName = "device.key"

    public let key: SymmetricKey

    public init(key: SymmetricKey) { self.key = key }

    /// Loads the key at `path`, creating it when the file does not exist.
    ///
    /// Creation is atomic and crash-safe: random bytes go to a temporary file opened with
    /// O_EXCL and mode 0600, which is fsynced, then linked to `path` (a link, unlike a rename,
    /// never replaces a key another process created meanwhile: the loser of that race reads
    /// the winner's key), and the folder is fsynced so the name survives power loss. A crash
    /// leaves either no key file or a whole one, at worst with a stray temporary file.
    /// The folder must exist.
    public static func loadOrCreate(at path: String) throws -> DeviceKey {
        if let key = try load(path, missingIsError: false) { return key }
        try create(at: path)
        // Read back what is now there: ours, or the one a concurrent creator linked first.
        return try load(path, missingIsError: true)!
    }

    /// Loads an operator-provided key (`--key-file PATH`): the same checks, but a missing file
    /// is an error, never created (a typo must not silently start a new, empty library).
    public static func load(keyFile path: String) throws -> DeviceKey {
        try load(path, missingIsError: true)!
    }

    // MARK: Internals

    private static func load(_ path: String, missingIsError: Bool) throws -> DeviceKey? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT && !missingIsError { return nil }
            throw KeyFileError(path: path, reason: "cannot be opened: \(errnoText(code))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw KeyFileError(path: path, reason: "cannot be examined: \(errnoText(errno))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw KeyFileError(path: path, reason: "is not a regular file")
        }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 == 0 else {
            let access = permissions & 0o044 != 0 ? "readable" : "writable or executable"
            throw KeyFileError(path: path, reason: "is \(access) by group or others (mode 0"
                + String(permissions, radix: 8) + "); run chmod 600 on it")
        }
        guard info.st_size == SymmetricKey.byteCount else {
            throw KeyFileError(path: path, reason: "is \(info.st_size) bytes; a device key is exactly "
                + "\(SymmetricKey.byteCount) random bytes (was it truncated or replaced?)")
        }
        let key = try SymmetricKey { buffer in
            var done = 0
            while done < buffer.count {
                let n = read(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw KeyFileError(path: path, reason: n == 0 ? "ended early" : "cannot be read: \(errnoText(errno))")
                }
                done += n
            }
        }
        return DeviceKey(key: key)
    }

    private static func create(at path: String) throws {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let suffix = try SecureRandom.bytes(6).map { String($0, radix: 16) }.joined()
        let temporary = "\(path).\(getpid())-\(suffix).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw KeyFileError(path: path, reason: "cannot be created: \(errnoText(errno))")
        }
        defer { unlink(temporary) }  // after the link the key lives on under `path`
        do {
            defer { close(fd) }
            // umask can only clear bits of 0600; fchmod makes the mode exact whatever it is.
            fchmod(fd, 0o600)
            let key = try SymmetricKey()
            try key.withUnsafeBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw KeyFileError(path: path, reason: "cannot be written: \(errnoText(errno))") }
                    done += n
                }
            }
            guard fsync(fd) == 0 else { throw KeyFileError(path: path, reason: "cannot be synced: \(errnoText(errno))") }
        }
        if link(temporary, path) != 0 {
            let code = errno
            switch code {
            case EEXIST:
                return  // another process created it first; the caller reads that one
            case EPERM, EOPNOTSUPP, EXDEV, EMLINK:
                // A file system without hard links (FAT, some FUSE mounts): rename, which may
                // replace a concurrent creator's key, a race only two first starts can lose.
                guard rename(temporary, path) == 0 else {
                    throw KeyFileError(path: path, reason: "cannot be created: \(errnoText(errno))")
                }
            default:
                throw KeyFileError(path: path, reason: "cannot be created: \(errnoText(code))")
            }
        }
        try syncFolder(folder, for: path)
    }

    private static func syncFolder(_ folder: String, for path: String) throws {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw KeyFileError(path: path, reason: "its folder cannot be opened: \(errnoText(errno))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw KeyFileError(path: path, reason: "its folder cannot be synced: \(errnoText(errno))") }
    }
}

/// The device key file cannot be used; `description` says what to do. Names the path only.
public struct KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "the device key file \(path) \(reason)" }
}
