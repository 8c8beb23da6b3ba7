import ControlAPI
import FoundationEssentials
import GLibRuntime
import Storage
import TextSupport

/// Online renewal (`--license-url`) as the control server and the playback feature ask for it.
extension Library {
    /// True when an open of `request` would be refused for a spent licence that the licence
    /// server may renew: the caller renews first (`renew`), then opens.
    public func mayRenew(before request: OpenRequest) -> Bool {
        guard renewal.isConfigured, let contentId = request.contentId,
              let item = record(contentId: contentId, userId: request.userId), item.state == .complete else { return false }
        return verdict(item).expired && renewal.mayAsk(for: item.id)
    }

    /// Asks the licence server for a new licence for the content of `request`; `completion`
    /// runs once, on the GLib thread, whatever the answer (a refusal then follows at the open).
    public func renew(before request: OpenRequest, completion: @escaping () -> Void) {
        guard let contentId = request.contentId, let item = record(contentId: contentId, userId: request.userId) else {
            completion()
            return
        }
        renewal.ask(itemID: item.id, contentId: contentId, userId: request.userId) { [weak self] terms in
            if let self, let terms, self.records[item.id] != nil {
                self.log.info("licence renewed online", ["id": item.id])
                _ = try? self.replaceLicense(item.id, terms)
            }
            completion()
        }
    }
}
