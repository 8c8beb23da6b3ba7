import ControlAPI
import GLibRuntime
import HTTPFetch

/// Key delivery (API-2 §2): a session with a key service plays through the header proxy, whose
/// `KeyDelivery` asks the key service for each key. A refused key ends playback with
/// `key_error`; a key service that kept failing is answered 502 to hlsdemux2, whose error is
/// then a network fault the recovery rides out like a failing origin.
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

    /// A pipeline error while a key of the session is missing because the key service kept
    /// failing past the proxy's retries: hlsdemux2 (1.22) reports it as a `media_error`
    /// ("Internal data stream error", measured with a key service answering 503 for 6 s), but
    /// it is a network fault, ridden out like a failing origin once the source played, else
    /// `key_error`. False when no key is missing (the error is reported as it is).
    func handleKeyServiceOutage(in session: PlaybackSession) -> Bool {
        guard let token = session.proxyToken, let reason = proxy.takeKeyServiceOutage(for: token) else { return false }
        log.warning("key service unavailable", ["message": reason])  // names the key URI, never the key
        if session.recovery?.pipelineError(APIError(.networkError, reason)) == true { return true }
        feed(.failed(APIError(.keyError, reason)))
        return true
    }
}
