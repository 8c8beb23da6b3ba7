import ControlAPI
import GStreamerKit

extension APIError {
    /// Maps a pipeline error to a stable API code. The GError domain says what failed: a
    /// resource (the file or the network), the stream (what the bytes contain) or GStreamer.
    init(pipelineError error: GStreamerError, remote: Bool) {
        let message = error.message
        switch error.domain {
        case .resource where error.isResourceNotFound:
            self.init(remote ? .networkError : .notFound, message)
        case .resource:
            self.init(remote ? .networkError : .mediaError, message)
        case .stream:
            self.init(.mediaError, message)
        case .core where error.isMissingPlugin:
            self.init(.mediaError, message)
        default:
            self.init(.pipelineError, message)
        }
    }
}
