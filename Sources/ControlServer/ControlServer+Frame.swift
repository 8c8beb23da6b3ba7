import CSoup
import ControlAPI
import Dispatch
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import HTTPFetch
import PlayerCore

/// `GET /v1/snapshot.jpg`: the composed frame on screen as JPEG. The frame is taken on the
/// GLib thread (a reference, no copy) and encoded on a worker thread, so a dashboard polling
/// twice a second never holds up the loop; the reply is paused meanwhile (and for the few
/// frames after an open until the stage shows the new source).
extension ControlServer {
    static let maxSnapshotsInProgress = 4
    static let snapshotWidths = 16...3840

    func replyWithFrame(_ msg: SoupMessage, route: String, query: OpaquePointer?) {
        var width: Int?
        if let text = queryValue(query, "width") {
            guard let value = Int(text), Self.snapshotWidths.contains(value) else {
                reply(msg, route: route, error: APIError(.invalidArgument, "'width' must be 16 to 3840 pixels"))
                return
            }
            width = value
        }
        guard snapshotsInProgress < Self.maxSnapshotsInProgress else {
            reply(msg, route: route, error: APIError(.tooManyRequests, "\(Self.maxSnapshotsInProgress) snapshots are being encoded; try again"))
            return
        }
        snapshotsInProgress += 1
        let pending = HeldReply(msg)
        let scaledWidth = width
        // While a source opens, and for the few frames after, the stage does not show it yet:
        // wait (up to 3 s) rather than answer no_video or the empty background.
        let deadline = ContinuousClock.now + .seconds(3)
        func settled(_ then: @escaping @GLibActor () -> Void) {
            let wait = player.frameSettleMilliseconds
            guard wait > 0, ContinuousClock.now < deadline else { return then() }
            runAfter(milliseconds: min(wait, 100)) { settled(then) }
        }
        settled { [weak self] in
            guard let self else { return }
            let frame: Sample
            do throws(APIError) {
                frame = try self.player.currentFrame()
            } catch {
                self.snapshotsInProgress -= 1
                self.metrics.countRequest(route: route, status: error.httpStatus)
                pending.finish { $0.respondError(error) }
                return
            }
            DispatchQueue.global(qos: .userInitiated).async {
                let jpeg = frame.jpeg(width: scaledWidth)
                Task { @GLibActor [weak self] in
                    self?.snapshotsInProgress -= 1
                    self?.metrics.countRequest(route: route, status: jpeg == nil ? 500 : 200)
                    pending.finish { msg in
                        if let jpeg {
                            msg.respond(status: 200, contentType: "image/jpeg", body: jpeg, headers: ["Cache-Control": "no-store"])
                        } else {
                            msg.respondError(APIError(.internalError, "the frame could not be encoded as JPEG"))
                        }
                    }
                }
            }
        }
    }
}

/// A reply answered later: the message is referenced and paused until `finish`, and
/// nothing is written if the client went away meanwhile. Used on the GLib thread only; it
/// crosses to a worker thread and back untouched, hence the unchecked Sendable.
final class HeldReply: @unchecked Sendable {
    private let raw: OpaquePointer
    private var finishedHandler: UInt = 0
    private var clientGone = false

    @GLibActor
    init(_ message: SoupMessage) {
        raw = message.raw
        g_object_ref(UnsafeMutableRawPointer(raw))
        message.pause()
        finishedHandler = connectFinished(raw) { [weak self] in self?.clientGone = true }
    }

    @GLibActor
    func finish(_ respond: (SoupMessage) -> Void) {
        g_signal_handler_disconnect(UnsafeMutableRawPointer(raw), finishedHandler)
        if !clientGone {
            let message = SoupMessage(raw: raw)
            respond(message)
            message.unpause()
        }
        g_object_unref(UnsafeMutableRawPointer(raw))
    }
}
