import ControlAPI
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import Logging

/// Online renewal (`--license-url`): `POST {"contentId", "userId"}` to the licence server; a
/// 200 whose body is a LICENSE replaces the item's licence. On the GLib thread, asynchronous
/// (libsoup on the GLib context: the API thread never waits on it).
///
/// An item is asked about at most once a minute: a server that keeps refusing does not get
/// a request per open, and a refused open answers at once in between.
@GLibActor
final class LicenseRenewal {
    static let askInterval: Double = 60
    private let url: String?
    private var fetcher: HTTPFetcher?
    private var lastAsked: [String: ContinuousClock.Instant] = [:]
    private let log = Logger(category: "library")

    init(url: String?) { self.url = url }

    var isConfigured: Bool { url != nil }

    func mayAsk(for itemID: String) -> Bool {
        guard let last = lastAsked[itemID] else { return true }
        return ContinuousClock.now - last >= .seconds(Self.askInterval)
    }

    /// `completion` gets the new terms, or nil (refused, unreachable, not a licence).
    func ask(itemID: String, contentId: String, userId: String?, completion: @escaping (LicenseTerms?) -> Void) {
        guard let url else {
            completion(nil)
            return
        }
        lastAsked[itemID] = .now
        let fetcher = self.fetcher ?? HTTPFetcher(timeoutSeconds: 10)
        self.fetcher = fetcher
        var body: [String: String] = ["contentId": contentId]
        if let userId { body["userId"] = userId }
        fetcher.post(url, body: JSONCoding.encode(body), contentType: "application/json") { [log] result in
            switch result {
            case .success(let resource) where resource.status == 200:
                do throws(APIError) {
                    completion(try JSONCoding.decodeBody(LicenseTerms.self, from: resource.body))
                } catch {
                    log.warning("the licence server's answer is not a licence", ["error": error.message])
                    completion(nil)
                }
            case .success(let resource):
                log.info("the licence server did not renew", ["status": "\(resource.status)"])
                completion(nil)
            case .failure(let error):
                log.warning("the licence server cannot be reached", ["error": "\(error)"])
                completion(nil)
            }
        }
    }
}
