#if canImport(Glibc)
import Glibc
#endif

/// `strerror`'s text for an errno value, with the number (stable across locales): for the
/// errors of the key file and the media files.
func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code)) + " (errno \(code))"
}
