import FoundationEssentials

/// The text Foundation's `error.localizedDescription` gave for FileManager's errors: the
/// daemon links only FoundationEssentials, where errors have no `localizedDescription`.
/// Only "no such file" has its own sentence there; other codes read
/// "(NSCocoaErrorDomain error N.)", as Foundation words a code it has no sentence for.
extension Error {
    public var fileErrorText: String {
        let prefix = "The operation could not be completed. "
        guard let error = self as? CocoaError else { return prefix + "(\(self))" }
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return prefix + "The file doesn’t exist."
        default: return prefix + "(NSCocoaErrorDomain error \(error.code.rawValue).)"
        }
    }
}
