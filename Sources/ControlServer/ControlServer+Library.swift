import CSoup
import ControlAPI
import FoundationEssentials
import GLibRuntime
import OfflineLibrary

/// `/v1/library` (API-2 §1). Reads answer from the library's memory at once; an add and a
/// delete answer once the worker thread has recorded or removed it (the reply is held, the
/// GLib thread is not).
extension ControlServer {
    func handleLibrary(_ route: Route, _ msg: SoupMessage) {
        guard let library else {
            reply(msg, route: route.path, error: APIError(.notFound, "the offline library is off in this daemon"))
            return
        }
        let id = route.parameters(in: msg.path.count > 1 && msg.path.hasSuffix("/") ? String(msg.path.dropLast()) : msg.path)?.first ?? ""
        do throws(APIError) {
            switch route.action {
            case .libraryList:
                reply(msg, route: route.path, status: 200, library.list())
            case .libraryItem:
                reply(msg, route: route.path, status: 200, try library.item(id))
            case .libraryPause:
                reply(msg, route: route.path, status: 200, try library.pause(id))
            case .libraryResume:
                reply(msg, route: route.path, status: 200, try library.resume(id))
            case .libraryLicense:
                // The new licence replaces the old: an empty body is no licence at all (`{}`
                // lifts every limit, and says so).
                guard !msg.requestBody.isEmpty else { throw APIError(.invalidJSON, "send the new licence as a JSON object ({} for none)") }
                let terms = try JSONCoding.decodeBody(LicenseTerms.self, from: msg.requestBody)
                reply(msg, route: route.path, status: 200, try library.replaceLicense(id, terms))
            case .libraryAdd:
                let request = try JSONCoding.decodeBody(LibraryAddRequest.self, from: msg.requestBody)
                hold(msg) { finish in
                    library.add(request) { finish($0, 202) }
                } answer: { [weak self] outcome, status in self?.answer(msg, route: route.path, outcome, status: status) }
            case .libraryRemove:
                hold(msg) { finish in
                    library.remove(id) { finish($0, 200) }
                } answer: { [weak self] outcome, status in self?.answer(msg, route: route.path, outcome, status: status) }
            default:
                throw APIError(.internalError, "not a library route")
            }
        } catch {
            reply(msg, route: route.path, error: error)
        }
    }

    /// Holds the reply (the message paused and referenced) until `work` finishes.
    private func hold(_ msg: SoupMessage,
                      _ work: (@escaping (Result<LibraryItem, APIError>, Int) -> Void) -> Void,
                      answer: @escaping (Result<LibraryItem, APIError>, Int) -> Void) {
        g_object_ref(UnsafeMutableRawPointer(msg.raw))
        msg.pause()
        work { outcome, status in
            answer(outcome, status)
            msg.unpause()
            g_object_unref(UnsafeMutableRawPointer(msg.raw))
        }
    }

    private func answer(_ msg: SoupMessage, route: String, _ outcome: Result<LibraryItem, APIError>, status: Int) {
        switch outcome {
        case .success(let item): reply(msg, route: route, status: status, item)
        case .failure(let error): reply(msg, route: route, error: error)
        }
    }
}
