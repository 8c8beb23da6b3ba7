import ControlAPI
import GLibRuntime
import HTTPFetch

/// Key delivery (API-2 §2): a session with a key service plays through the header proxy, whose
/// `KeyDelivery` asks the key service for each key. A refused key ends playback with
/// `key_error`; a failing key service is answered 502 to hlsdemux2, an origin fault the
/// recovery rides out.
extension Player {
    /// Hears a refusal on the proxy's thread and carries it to the GLib thread.
    func keyRefusedReporter() -> @Sendable (_ token: String, _ reason: String) -> Void {
        { [weak self] token, reason in
            Task { @GLibActor in self?.failKeyRefused(reason, token: token) }
        }
    }

    /// Ends the session whose proxy token is `token` with `key_error` (once: the machine
    /// reports the first failure only); a refusal for a session already replaced is dropped.
    func failKeyRefused(_ reason: String, token: String?) {
        guard let session, let token, session.proxyToken == token else { return }
        log.error("key refused", ["message": reason])  // names the key URI, never the key
        feed(.failed(APIError(.keyError, reason)))
    }
}
