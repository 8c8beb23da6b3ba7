#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to stdout and stderr, replacing `FileHandle.standardError.write(_:)`:
/// the daemon links only FoundationEssentials, which has no `FileHandle`. Like FileHandle,
/// and unlike `print`, nothing is buffered, so lines from different threads and from
/// GStreamer's own stderr logging do not interleave mid-line.
public enum StandardStream {
    /// Writes all of `text` to stderr.
    public static func writeError(_ text: String) { writeAll(text, to: STDERR_FILENO) }

    /// Writes all of `text` to stdout.
    public static func writeOutput(_ text: String) { writeAll(text, to: STDOUT_FILENO) }

    private static func writeAll(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let n = write(descriptor, base + offset, bytes.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    // Nowhere left to report a failing stdout or stderr; drop the rest.
                    return
                }
            }
        }
    }
}
