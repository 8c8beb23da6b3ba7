import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads the first bytes of a file with POSIX calls, in place of `FileHandle`: the daemon
/// links only FoundationEssentials, which has none. Reading a bounded prefix (not the
/// whole file) matters for files such as those under /proc that claim size 0 and never end.
enum FilePrefix {
    struct ReadError: Error, CustomStringConvertible {
        let code: Int32
        /// Worded as FileHandle's error read for a missing file, the common case.
        var description: String {
            code == ENOENT ? "The operation could not be completed. The file doesn’t exist."
                : "The operation could not be completed. (\(String(cString: strerror(code))))"
        }
    }

    /// Up to `count` bytes from the start of `file`, read in 64 KiB pieces (a subtitle file
    /// is small; the limit is not allocated up front).
    static func read(_ file: URL, upTo count: Int) throws(ReadError) -> Data {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(code: errno) }
        defer { close(descriptor) }
        var data = Data()
        var piece = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count < count {
            let wanted = min(piece.count, count - data.count)
            let n = piece.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if n > 0 {
                data.append(contentsOf: piece[..<n])
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw ReadError(code: errno)
            }
        }
        return data
    }
}
