import CSoup
import FoundationEssentials
import GLibRuntime

/// Closes connections whose request does not arrive in time. libsoup waits forever for a
/// request's headers and body, so a client that sends half a request (or opens a
/// connection and says nothing) would hold a socket and its memory for as long as it
/// likes; enough of them exhaust the file descriptors the player needs. Each request gets
/// `seconds` from the moment libsoup starts reading it (a new connection's accept, or the
/// first bytes of the next request on a kept-alive one) until its handler runs.
/// A request that is late has its socket shut down. One sweep a second, only while
/// requests are being read (it stops itself a second after the last). GLib thread only.
@GLibActor
final class RequestDeadlines {
    let seconds: Double
    /// Messages being read, each referenced until it is handled, finished or swept.
    private var pending: [OpaquePointer: Double] = [:]
    private var sweeper: LoopTimer?
    private let onTimeout: @GLibActor () -> Void

    init(seconds: Double, onTimeout: @escaping @GLibActor () -> Void) {
        self.seconds = seconds
        self.onTimeout = onTimeout
    }

    func started(_ msg: OpaquePointer) {
        guard pending[msg] == nil else { return }
        g_object_ref(UnsafeMutableRawPointer(msg))
        pending[msg] = Self.now() + seconds
        if sweeper == nil {
            sweeper = LoopTimer(milliseconds: 1000) { [weak self] in self?.sweep() }
        }
    }

    /// The request arrived whole (its handler runs) or ended: its deadline no longer applies.
    func ended(_ msg: OpaquePointer) {
        guard pending.removeValue(forKey: msg) != nil else { return }
        g_object_unref(UnsafeMutableRawPointer(msg))
        // The sweeper stops itself once it finds nothing pending: cancelling it here would
        // create and destroy a GLib timer for every request of a busy keep-alive client.
    }

    func closeAll() {
        for msg in Array(pending.keys) { ended(msg) }
        sweeper?.cancel()
        sweeper = nil
    }

    private func sweep() {
        guard !pending.isEmpty else {
            sweeper?.cancel()
            sweeper = nil
            return
        }
        let now = Self.now()
        for (msg, deadline) in pending where deadline <= now {
            // libsoup's read then fails and it drops the connection and the message.
            if let socket = soup_server_message_get_socket(msg) {
                g_socket_shutdown(socket, 1, 1, nil)
            }
            ended(msg)
            onTimeout()
        }
    }

    private static func now() -> Double { Double(g_get_monotonic_time()) / 1_000_000 }
}
